/**
 * @module bench/template/workloads
 * The real-data workloads of the template benchmark: the injection core's own renders. A config
 * is loaded twice over, once with its templates compiled and once with the reference
 * interpreter (the same texts and function map, only the engine differs); one injection of a
 * benchmark pod through each captures the template data the core hands to the engine, so a
 * render can be timed alone on exactly that data, and the whole core can be timed per engine.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultConfig } from '../../src/profiles/index.js';
import type { LoadedConfig } from '../../src/config/types.js';
import { injectPod } from '../../src/inject/index.js';
import type { InjectionContext } from '../../src/inject/types.js';
import { istioChartConfig, istioChartPresent } from '../../test/support/istio-chart.js';
import { DelegatingTemplate } from '../../test/support/template-engines.js';
import { sprigFuncs, templateFuncs } from '../../src/template/funcs/index.js';
import { parseTemplate, type ExecuteOptions, type Template, type TemplateEngine } from '../../src/template/index.js';
import { podF1, podF2 } from '../fixtures.js';

const HERE = dirname(fileURLToPath(import.meta.url));

/** One template of a config on both engines, with the data and options one injection rendered it with. */
export interface CapturedRender {
  readonly template: string;
  readonly compiled: Template;
  readonly interpreter: Template;
  readonly data: unknown;
  readonly options: ExecuteOptions | undefined;
}

/** A Template that remembers what it was last rendered with. */
class Recorder extends DelegatingTemplate {
  data: unknown;
  options: ExecuteOptions | undefined;
  override execute(data: unknown, options?: ExecuteOptions): string {
    this.data = data;
    this.options = options;
    return this.inner.execute(data, options);
  }
  /** Never memoised: the recorder must see the render. */
  override rootReads(): null {
    return null;
  }
}

/** `config` with every template parsed again for `engine`. */
export function withEngine(config: LoadedConfig, engine: TemplateEngine): LoadedConfig {
  const funcs = templateFuncs({ allowEnv: config.templateOptions.allowEnv });
  const templates = new Map<string, Template>();
  for (const [name, text] of Object.entries(config.templates)) templates.set(name, parseTemplate(name, text, { funcs, engine }));
  return { ...config, compiledTemplates: templates };
}

/** Inject `pod` once and return each template it rendered, on both engines, with its data. */
export function captureRenders(config: LoadedConfig, pod: unknown, ctx: InjectionContext): CapturedRender[] {
  const compiled = withEngine(config, 'compiled');
  const interpreter = withEngine(config, 'interpreter');
  const recorders = new Map<string, Recorder>();
  for (const [name, t] of compiled.compiledTemplates) recorders.set(name, new Recorder(t));
  injectPod(structuredClone(pod), ctx, { ...compiled, compiledTemplates: recorders });
  const out: CapturedRender[] = [];
  for (const [name, r] of recorders) {
    if (r.data === undefined) continue;
    out.push({
      template: name,
      compiled: compiled.compiledTemplates.get(name)!,
      interpreter: interpreter.compiledTemplates.get(name)!,
      data: r.data,
      options: r.options,
    });
  }
  return out;
}

/** One thing to time on both engines. */
export interface Workload {
  name: string;
  /** Per-engine call, and what it produces (compared across engines before timing). */
  run: Record<TemplateEngine, () => string>;
  templateBytes?: number;
  /** Parse (and, for the compiled engine, compile) the template once. */
  parse?: Record<TemplateEngine, () => void>;
  /** Files for Go's oracle (template, JSON data), when Go can render this workload. */
  go?: { template: string; data: string };
}

/**
 * Every workload of the benchmark: the Sprig-only snippet and sidecar (Go renders them too),
 * each template a config renders for the F1 pod (built-in, and Istio's when present) on the
 * data the core gave it, and the whole core for F1 and F2 with the built-in config.
 */
export function buildWorkloads(): Workload[] {
  const workloads: Workload[] = [];
  const sprig = sprigFuncs();
  for (const [name, tpl, json] of [
    ['small container snippet', 'small.tpl', 'small.json'],
    ['large proxy sidecar', 'sidecar.tpl', 'sidecar-data.json'],
  ] as const) {
    const template = join(HERE, tpl);
    const dataFile = join(HERE, json);
    const text = readFileSync(template, 'utf8');
    const data: unknown = JSON.parse(readFileSync(dataFile, 'utf8'));
    const compiled = parseTemplate('t', text, { funcs: sprig });
    const interpreter = parseTemplate('t', text, { funcs: sprig, engine: 'interpreter' });
    workloads.push({
      name,
      templateBytes: Buffer.byteLength(text),
      run: { compiled: () => compiled.execute(data), interpreter: () => interpreter.execute(data) },
      parse: {
        compiled: () => void parseTemplate('t', text, { funcs: sprig }),
        interpreter: () => void parseTemplate('t', text, { funcs: sprig, engine: 'interpreter' }),
      },
      go: { template, data: dataFile },
    });
  }
  const ctx = { namespace: 'shop', mode: 'webhook' as const };
  const configs: [string, LoadedConfig][] = [['built-in', defaultConfig()]];
  if (istioChartPresent()) configs.push(["Istio's", istioChartConfig()]);
  for (const [label, config] of configs) {
    for (const r of captureRenders(config, podF1(), ctx)) {
      workloads.push({
        name: `${label} template "${r.template}", F1 pod data`,
        templateBytes: Buffer.byteLength(config.templates[r.template] ?? ''),
        run: { compiled: () => r.compiled.execute(r.data, r.options), interpreter: () => r.interpreter.execute(r.data, r.options) },
      });
    }
  }
  const builtin = { compiled: withEngine(defaultConfig(), 'compiled'), interpreter: withEngine(defaultConfig(), 'interpreter') };
  for (const [name, pod] of [
    ['injection core (injectPod), F1, built-in config', podF1()],
    ['injection core (injectPod), F2, built-in config', podF2()],
  ] as const) {
    const once = (engine: TemplateEngine): string => JSON.stringify(injectPod(pod, ctx, builtin[engine]));
    workloads.push({ name, run: { compiled: () => once('compiled'), interpreter: () => once('interpreter') } });
  }
  return workloads;
}
