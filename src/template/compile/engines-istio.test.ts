/**
 * Both engines on real template data: Istio's injection templates (every input of Istio's
 * injection test data, with each case's chart options; skipped when ../shared/conformance/istio
 * is absent) and the built-in default templates over the same inputs, rendered through the
 * injection core with each config template swapped for a DualTemplate that renders with the
 * compiled engine and the interpreter and records any difference in output or error.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultConfig } from '../../profiles/index.js';
import type { LoadedConfig } from '../../config/types.js';
import { istioChartConfig, istioChartPresent, type IstioChartOptions } from '../../../test/support/istio-chart.js';
import { istioCases, istioInjectDataPresent, runIstioCase } from '../../../test/support/istio-conformance.js';
import { DualTemplate, type EngineMismatch } from '../../../test/support/template-engines.js';
import { templateFuncs } from '../funcs/index.js';
import { parseTemplate, type Template } from '../index.js';

const present = istioChartPresent() && istioInjectDataPresent();

function dual(config: LoadedConfig, log: { renders: number; mismatches: EngineMismatch[] }): LoadedConfig {
  const funcs = templateFuncs({ allowEnv: config.templateOptions.allowEnv });
  const templates = new Map<string, Template>();
  for (const [name, text] of Object.entries(config.templates)) {
    const compiled = parseTemplate(name, text, { funcs, engine: 'compiled' });
    const interpreter = parseTemplate(name, text, { funcs, engine: 'interpreter' });
    templates.set(name, new DualTemplate(compiled, interpreter, log));
  }
  return { ...config, compiledTemplates: templates };
}

describe("compiled = interpreter on Istio's templates and inputs", {
  skip: present ? false : 'Istio conformance data not found (../shared/conformance/istio)',
}, () => {
  it("Istio's chart templates, every case's options and inputs", () => {
    const log = { renders: 0, mismatches: [] as EngineMismatch[] };
    const configs = new Map<string, LoadedConfig>();
    const configOf = (options: IstioChartOptions): LoadedConfig => {
      const key = JSON.stringify(options);
      let c = configs.get(key);
      if (c === undefined) configs.set(key, (c = dual(istioChartConfig(options), log)));
      return c;
    };
    for (const c of istioCases()) runIstioCase(c, undefined, configOf);
    assert.deepEqual(log.mismatches.slice(0, 3), []);
    assert.ok(log.renders > 100, `only ${log.renders} renders compared`);
  });

  it('the built-in templates on the same inputs', () => {
    const log = { renders: 0, mismatches: [] as EngineMismatch[] };
    const config = dual(defaultConfig(), log);
    for (const c of istioCases()) runIstioCase(c, undefined, () => config);
    assert.deepEqual(log.mismatches.slice(0, 3), []);
    assert.ok(log.renders > 100, `only ${log.renders} renders compared`);
  });
});
