/**
 * @module test/support/template-engines
 * Run one template text on both engines (the compiled closures and the reference interpreter)
 * and describe the outcome so two outcomes compare with deepEqual: the output, or the error's
 * class, code and message, and the phase it failed in. Shared by the differential tests.
 */
import { isDeepStrictEqual } from 'node:util';
import { TemplateError } from '../../src/errors.js';
import { parseTemplate, type ExecuteOptions, type FuncMap, type Template, type TemplateEngine } from '../../src/template/index.js';

export type EngineOutcome =
  | { readonly output: string }
  | { readonly phase: 'parse' | 'exec'; readonly error: string; readonly code?: string; readonly message: string };

function failure(phase: 'parse' | 'exec', err: unknown): EngineOutcome {
  if (err instanceof TemplateError) return { phase, error: 'TemplateError', code: err.code, message: err.message };
  return { phase, error: err instanceof Error ? err.constructor.name : typeof err, message: err instanceof Error ? err.message : String(err) };
}

/** What one engine does with `text` on each of `datas` (parsed once). */
export function runEngine(engine: TemplateEngine, text: string, datas: readonly unknown[], funcs: FuncMap, options?: ExecuteOptions): EngineOutcome[] {
  let template;
  try {
    template = parseTemplate('t', text, { funcs, engine });
  } catch (err) {
    return datas.map(() => failure('parse', err));
  }
  return datas.map((data) => {
    try {
      return { output: template.execute(data, options) };
    } catch (err) {
      return failure('exec', err);
    }
  });
}

/** Both engines' outcomes, for an assertion that they are equal. */
export function bothEngines(
  text: string,
  datas: readonly unknown[],
  funcs: FuncMap,
  options?: ExecuteOptions,
): { compiled: EngineOutcome[]; interpreter: EngineOutcome[] } {
  return { compiled: runEngine('compiled', text, datas, funcs, options), interpreter: runEngine('interpreter', text, datas, funcs, options) };
}

const STEP_ERROR = /exceeded maximum number of execution steps/;

function isStepError(o: EngineOutcome): boolean {
  return 'message' in o && o.phase === 'exec' && STEP_ERROR.test(o.message);
}

/**
 * The smallest `maxSteps` with which the interpreter renders `text` without the step error,
 * found by bisection up to `cap` (undefined: it needs more, or it fails to parse).
 */
export function stepsNeeded(text: string, data: unknown, funcs: FuncMap, cap: number, options: ExecuteOptions = {}): number | undefined {
  const fails = (maxSteps: number): boolean => isStepError(runEngine('interpreter', text, [data], funcs, { ...options, maxSteps })[0]);
  if (fails(cap)) return undefined;
  let lo = 0; // fails(lo - 1) is known true or lo is 0
  let hi = cap; // renders without the step error
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (fails(mid)) lo = mid + 1;
    else hi = mid;
  }
  return hi;
}

/** A render where the two engines disagreed. */
export interface EngineMismatch {
  readonly template: string;
  readonly compiled: EngineOutcome;
  readonly interpreter: EngineOutcome;
}

/**
 * A Template that hands everything to `inner`: test and bench wrappers extend it and override
 * what they watch (the render, the memo's read chains).
 */
export class DelegatingTemplate implements Template {
  constructor(protected readonly inner: Template) {}

  get name(): string {
    return this.inner.name;
  }

  get engine(): TemplateEngine {
    return this.inner.engine;
  }

  execute(data: unknown, options?: ExecuteOptions): string {
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

  callsAny(names: ReadonlySet<string>): boolean {
    return this.inner.callsAny(names);
  }

  rootReads(): readonly (readonly string[])[] | null {
    return this.inner.rootReads();
  }
}

/**
 * A Template that renders with both engines on every execute, records any disagreement in
 * `mismatches`, and answers as the interpreter does. Swapped into a loaded config, it checks
 * the engines on real template data (Go structs, proto views, methods) along the real path.
 */
export class DualTemplate extends DelegatingTemplate {
  constructor(
    private readonly compiled: Template,
    interpreter: Template,
    private readonly log: { renders: number; mismatches: EngineMismatch[] },
  ) {
    super(interpreter);
  }

  override get engine(): TemplateEngine {
    return 'interpreter';
  }

  override execute(data: unknown, options?: ExecuteOptions): string {
    const run = (t: Template): EngineOutcome => {
      try {
        return { output: t.execute(data, options) };
      } catch (err) {
        return failure('exec', err);
      }
    };
    const interpreter = run(this.inner);
    const compiled = run(this.compiled);
    this.log.renders++;
    if (!isDeepStrictEqual(compiled, interpreter)) this.log.mismatches.push({ template: this.name, compiled, interpreter });
    return this.inner.execute(data, options);
  }

  /** Never memoised: every render must reach both engines. */
  override rootReads(): null {
    return null;
  }
}
