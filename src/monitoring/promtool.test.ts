/**
 * The alerting rules and the dashboard through the real promtool 3.16 (e2e/build/prometheus.sh):
 * `check rules` on the rules file, the PrometheusRule and the dashboard's queries, and `test
 * rules` on deploy/monitoring/tests, whose cases must cover every alert both ways (one that
 * fires, one that stays silent). That the cases can fail is shown too: with every alert made
 * never to fire, each alert's firing case fails, and made always to fire, each silent case fails.
 * Without promtool (not built on this machine) these tests are SKIPPED with the reason.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, cpSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { locatePrometheus } from '../../test/support/prometheus.js';
import { dashboardPanels } from './dashboard.js';
import { PROMETHEUS_RULE_FILE, RULES_FILE, ruleGroups } from './render-monitoring.js';

const located = locatePrometheus();
const skip = 'skip' in located ? located.skip : false;
const repo = (path: string): string => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const TESTS = repo('deploy/monitoring/tests/sidecar-injector.rules.test.yaml');
const tmp = mkdtempSync(join(tmpdir(), 'si-promtool-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

function promtool(...args: string[]): { code: number; out: string } {
  if ('skip' in located) throw new Error(located.skip);
  const r = spawnSync(located.promtool, args, { encoding: 'utf8', timeout: 120_000 });
  if (r.error) throw r.error;
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

interface PromtoolCase {
  name: string;
  alert_rule_test?: Array<{ alertname: string; exp_alerts?: unknown[] }>;
}
const cases = (parse(readFileSync(TESTS, 'utf8')) as { tests: PromtoolCase[] }).tests;

/** The unit tests run against a copy of the rules with every expression replaced. */
function runWithEvery(expr: string): string {
  const dir = join(tmp, `mutant-${expr.replace(/\W/g, '')}`);
  mkdirSync(join(dir, 'tests'), { recursive: true });
  const groups = ruleGroups().map((g) => ({ ...g, rules: g.rules.map((r) => ({ ...r, expr })) }));
  writeFileSync(join(dir, 'sidecar-injector.rules.yaml'), stringify({ groups }));
  cpSync(TESTS, join(dir, 'tests', 'cases.yaml'));
  const r = promtool('test', 'rules', join(dir, 'tests', 'cases.yaml'));
  assert.notEqual(r.code, 0, `the cases pass with every alert's expression set to ${expr}`);
  return r.out;
}
const failedNames = (out: string): Set<string> => new Set([...out.matchAll(/^\s+name: (.+),$/gm)].map((m) => m[1]!));

describe('alerting rules under the real promtool', { skip }, () => {
  it("promtool check rules accepts the rules file and the PrometheusRule's groups", () => {
    const plain = promtool('check', 'rules', repo(RULES_FILE));
    assert.equal(plain.code, 0, plain.out);
    assert.match(plain.out, new RegExp(`SUCCESS: ${ruleGroups()[0]!.rules.length} rules found`));
    const operator = parse(readFileSync(repo(PROMETHEUS_RULE_FILE), 'utf8')) as { spec: { groups: unknown } };
    writeFileSync(join(tmp, 'operator.yaml'), stringify({ groups: operator.spec.groups }));
    const r = promtool('check', 'rules', join(tmp, 'operator.yaml'));
    assert.equal(r.code, 0, r.out);
  });

  it('promtool test rules: every case passes', () => {
    const r = promtool('test', 'rules', TESTS);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /SUCCESS/);
  });

  it('every alert has a case where it fires and one where it stays silent', () => {
    for (const rule of ruleGroups()[0]!.rules) {
      const checks = cases.flatMap((c) => (c.alert_rule_test ?? []).filter((t) => t.alertname === rule.alert));
      assert.ok(
        checks.some((t) => (t.exp_alerts ?? []).length > 0),
        `${rule.alert} has a firing case`,
      );
      assert.ok(
        checks.some((t) => (t.exp_alerts ?? []).length === 0),
        `${rule.alert} has a silent case`,
      );
    }
  });

  it('the cases can fail: an alert that never fires fails its firing case; one that always fires fails its silent case', () => {
    const firing = (alert: string) =>
      cases.filter((c) => c.alert_rule_test?.some((t) => t.alertname === alert && (t.exp_alerts ?? []).length > 0)).map((c) => c.name);
    const silent = (alert: string) =>
      cases.filter((c) => c.alert_rule_test?.some((t) => t.alertname === alert && (t.exp_alerts ?? []).length === 0)).map((c) => c.name);
    const never = failedNames(runWithEvery('vector(1) > 2'));
    const always = failedNames(runWithEvery('vector(1)'));
    for (const rule of ruleGroups()[0]!.rules) {
      assert.ok(
        firing(rule.alert).every((n) => never.has(n)),
        `${rule.alert}: a firing case fails when it never fires`,
      );
      assert.ok(
        silent(rule.alert).some((n) => always.has(n)),
        `${rule.alert}: a silent case fails when it always fires`,
      );
    }
  });

  it('every dashboard query parses (as recording rules under promtool check rules)', () => {
    const rules = dashboardPanels().flatMap((p, i) => p.queries.map((q, j) => ({ record: `dashboard:panel_${i + 1}_${j + 1}`, expr: q.expr })));
    writeFileSync(join(tmp, 'dashboard.yaml'), stringify({ groups: [{ name: 'dashboard', rules }] }));
    const r = promtool('check', 'rules', join(tmp, 'dashboard.yaml'));
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, new RegExp(`SUCCESS: ${rules.length} rules found`));
    // And a broken query is caught the same way, so the check above can fail.
    writeFileSync(join(tmp, 'broken.yaml'), stringify({ groups: [{ name: 'd', rules: [{ record: 'x:y', expr: 'sum by (le (rate(x[5m]))' }] }] }));
    assert.notEqual(promtool('check', 'rules', join(tmp, 'broken.yaml')).code, 0);
  });
});
