/**
 * Istio's own injection templates and values (../shared/conformance/istio/chart, when present)
 * must load through our config layer exactly as istiod's ConfigMap carries them: the legacy
 * `template:` key, an empty `injectedAnnotations:`, JSON values.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { parseConfig } from './load.js';

const CHART = fileURLToPath(new URL('../../../shared/conformance/istio/chart/', import.meta.url));
const present = existsSync(CHART);
const read = (f: string) => readFileSync(CHART + f, 'utf8');

/** The `config` key as Istio's chart renders it (policy from global.proxy.autoInject, legacy key, empty map). */
function istioConfig(templates: Record<string, string>, defaultTemplate: string): string {
  return [
    `defaultTemplates: [${defaultTemplate}]`,
    'policy: enabled',
    'alwaysInjectSelector:',
    '  []',
    'neverInjectSelector:',
    '  []',
    'injectedAnnotations:',
    'template: "{{ Template_Version_And_Istio_Version_Mismatched_Check_Installation }}"',
    stringify({ templates }, { blockQuote: 'literal', lineWidth: 0 }),
  ].join('\n');
}

/** The `values` key: the chart's defaults, scoped as the chart does, as JSON. */
function istioValues(): string {
  const v = (parse(read('values.yaml')) as { _internal_defaults_do_not_set: Record<string, unknown> })._internal_defaults_do_not_set;
  return JSON.stringify({ global: v.global, sidecarInjectorWebhook: v.sidecarInjectorWebhook, revision: v.revision ?? '' }, null, 2);
}

describe("Istio's chart templates load", { skip: present ? false : `Istio chart not found at ${CHART}` }, () => {
  it('compiles gateway, grpc-simple and grpc-agent from an Istio-shaped ConfigMap, without warnings', () => {
    const templates = { gateway: read('gateway-injection-template.yaml'), 'grpc-simple': read('grpc-simple.yaml'), 'grpc-agent': read('grpc-agent.yaml') };
    const cfg = parseConfig(istioConfig(templates, 'gateway'), istioValues(), 'istio-sidecar-injector');
    assert.deepEqual([...cfg.compiledTemplates.keys()].sort(), ['gateway', 'grpc-agent', 'grpc-simple']);
    assert.deepEqual(cfg.warnings, []);
    assert.equal(cfg.policy, 'enabled');
    assert.equal((cfg.values.global as { proxy: { autoInject: string } }).proxy.autoInject, 'enabled');
  });

  it("compiles Istio's sidecar template", (t) => {
    try {
      const cfg = parseConfig(istioConfig({ sidecar: read('injection-template.yaml') }, 'sidecar'), istioValues(), 'istio-sidecar-injector');
      assert.ok(cfg.compiledTemplates.has('sidecar'));
    } catch (err) {
      // A known gap of the function library (not of the config layer); anything else fails.
      if (err instanceof Error && /templates\.sidecar: template: sidecar:\d+: function "otelResourceAttributes" not defined$/.test(err.message)) {
        t.todo('the Istio injector function otelResourceAttributes is not in src/template/funcs yet');
        return;
      }
      throw err;
    }
  });
});
