/**
 * The shipped monitoring files are the output of src/monitoring, byte for byte: the plain rules
 * file, the PrometheusRule, the dashboard and the chart's PrometheusRule template.
 * `UPDATE_GOLDEN=1` rewrites them. Also: every alert has a runbook section, and every panel an
 * explanation in docs/monitoring.md.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { alertSpecs, RUNBOOK_BASE_URL } from './alerts.js';
import { dashboardPanels, grafanaDashboard } from './dashboard.js';
import { DEFAULT_ALERT_PARAMS, generatedFiles, RULES_FILE, PROMETHEUS_RULE_FILE, ruleGroups } from './render-monitoring.js';

const UPDATE = process.env.UPDATE_GOLDEN === '1';
const repo = (path: string): string => fileURLToPath(new URL(`../../${path}`, import.meta.url));

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(markdown: string): Set<string> {
  return new Set(
    [...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
      m[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\w\- ]/g, '')
        .replace(/ /g, '-'),
    ),
  );
}

describe('generated monitoring files', () => {
  for (const [path, text] of Object.entries(generatedFiles())) {
    it(`${path} is current`, () => {
      if (UPDATE) writeFileSync(repo(path), text);
      assert.equal(readFileSync(repo(path), 'utf8'), text, `${path} is stale: run UPDATE_GOLDEN=1 npm test (or edit src/monitoring, not the file)`);
    });
  }

  it('the plain rules file and the PrometheusRule hold the same groups', () => {
    const plain = parse(readFileSync(repo(RULES_FILE), 'utf8')) as { groups: unknown };
    const operator = parse(readFileSync(repo(PROMETHEUS_RULE_FILE), 'utf8')) as { spec: { groups: unknown } };
    assert.deepEqual(operator.spec.groups, plain.groups);
    assert.deepEqual(plain.groups, JSON.parse(JSON.stringify(ruleGroups())));
  });

  it('every alert links to its own section of docs/runbooks.md', () => {
    const sections = anchors(readFileSync(repo('docs/runbooks.md'), 'utf8'));
    const specs = alertSpecs(DEFAULT_ALERT_PARAMS);
    for (const rule of ruleGroups()[0]!.rules) {
      assert.ok(rule.annotations.runbook_url.startsWith(`${RUNBOOK_BASE_URL}#`), rule.alert);
      const anchor = rule.annotations.runbook_url.split('#')[1]!;
      assert.ok(sections.has(anchor), `docs/runbooks.md has no section #${anchor} for ${rule.alert}`);
      assert.equal(anchor, rule.alert.toLowerCase(), 'the section is titled with the alert name');
    }
    assert.equal(new Set(specs.map((s) => s.runbook)).size, specs.length, 'one section per alert');
  });

  it('--for override shortens every for: and changes nothing else', () => {
    const short = ruleGroups({ forOverride: '5s' })[0]!.rules;
    const normal = ruleGroups()[0]!.rules;
    assert.ok(short.every((r) => r.for === '5s'));
    assert.deepEqual(
      short.map((r) => ({ ...r, for: '' })),
      normal.map((r) => ({ ...r, for: '' })),
    );
  });

  it('the dashboard has every panel the issue lists, each explained in docs/monitoring.md, with unique ids and no overlap', () => {
    const doc = readFileSync(repo('docs/monitoring.md'), 'utf8');
    const panels = dashboardPanels();
    for (const p of panels) assert.ok(doc.includes(`### ${p.title}`), `docs/monitoring.md explains the panel "${p.title}"`);
    const all = panels.flatMap((p) => p.queries.map((q) => q.expr)).join('\n');
    for (const metric of [
      'sidecar_injector_request_duration_seconds_count',
      'sidecar_injector_request_duration_seconds_bucket',
      'apiserver_admission_webhook_admission_duration_seconds_bucket',
      'sidecar_injector_failures_total',
      'apiserver_admission_webhook_rejection_count',
      'sidecar_injector_render_memo_total',
      'sidecar_injector_certificate_expiry_timestamp_seconds',
      'sidecar_injector_pods',
      'sidecar_injector_reloads_total',
    ]) {
      assert.ok(all.includes(metric), `a panel queries ${metric}`);
    }
    const json = grafanaDashboard() as { panels: Array<{ id: number; gridPos: { x: number; y: number; w: number; h: number } }> };
    assert.equal(new Set(json.panels.map((p) => p.id)).size, json.panels.length);
    const cells = new Set<string>();
    for (const { gridPos: g } of json.panels) {
      for (let x = g.x; x < g.x + g.w; x++)
        for (let y = g.y; y < g.y + g.h; y++) {
          assert.ok(!cells.has(`${x},${y}`), 'panels do not overlap');
          cells.add(`${x},${y}`);
        }
      assert.ok(g.x + g.w <= 24, 'inside the 24-column grid');
    }
  });
});
