/**
 * @module bench/template/workloads
 * The real-data workloads of the template benchmark: the injection core's own renders. A config
 * is loaded twice over, once with its templates compiled and once with the reference
 * interpreter (the same texts and function map, only the engine differs); one injection of a
 * benchmark pod through each captures the template data the core hands to the engine, so a
 * render can be timed alone on exactly that data, and the whole core can be timed per engine.
 */
import type { LoadedConfig } from '../../src/config/types.js';
import { injectPod } from '../../src/inject/index.js';
import type { InjectionContext } from '../../src/inject/types.js';
import { templateFuncs } from '../../src/template/funcs/index.js';
import { parseTemplate, type ExecuteOptions, type Template, type TemplateEngine } from '../../src/template/index.js';

/** One template of a config on both engines, with the data and options one injection rendered it with. */
export interface CapturedRender {
  readonly template: string;
  readonly compiled: Template;
  readonly interpreter: Template;
  readonly data: unknown;
  readonly options: ExecuteOptions | undefined;
}

/** A Template that remembers what it was last rendered with. */
class Recorder implements Template {
  data: unknown;
  options: ExecuteOptions | undefined;
  constructor(private readonly inner: Template) {}
  get name(): string {
    return this.inner.name;
  }
  get engine(): TemplateEngine {
    return this.inner.engine;
  }
  execute(data: unknown, options?: ExecuteOptions): string {
    this.data = data;
    this.options = options;
    return this.inner.execute(data, options);
  }
  executeTemplate(name: string, data: unknown, options?: ExecuteOptions): string {
    return this.inner.executeTemplate(name, data, options);
  }
  definedTemplates(): string[] {
    return this.inner.definedTemplates();
  }
  has(name: string): boolean {
    return this.inner.has(name);
  }
  lookup(name: string): Template | undefined {
    return this.inner.lookup(name);
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
    out.push({ template: name, compiled: compiled.compiledTemplates.get(name)!, interpreter: interpreter.compiledTemplates.get(name)!, data: r.data, options: r.options });
  }
  return out;
}
