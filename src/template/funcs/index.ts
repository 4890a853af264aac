/**
 * @module template/funcs
 * The template function maps. `sprigFuncs()` is Sprig 3.2.3's hermetic set as implemented here
 * (what the Go oracle has, minus random, time, network and environment functions, which are not
 * registered so templates using them fail to parse with Go's "function not defined").
 * `injectorFuncs()` is Istio's injection function map; `templateFuncs()` is what the product
 * uses: Sprig, Helm's `required`, then Istio's functions on top (Istio's win on clashes, as in
 * Istio). Maps are built once; the option-dependent ones are memoised per option set.
 */
import type { FuncMap } from '../value.js';
import { defaultFuncs } from './flow.js';
import { dictFuncs } from './dicts.js';
import { encodingFuncs } from './encoding.js';
import { buildInjectorFuncs, type InjectorOptions } from './injector.js';
import { jsonFuncs } from './json-funcs.js';
import { listFuncs } from './lists.js';
import { mathFuncs } from './math.js';
import { reflectFuncs } from './reflect.js';
import { regexFuncs } from './regex.js';
import { semverFuncs } from './semver.js';
import { stringListFuncs } from './string-lists.js';
import { stringFuncs } from './strings.js';
import { conversionFuncs } from './conversion.js';
import { pathFuncs } from './paths.js';

export type { InjectorOptions } from './injector.js';

/** Helm's additions that injection templates written for charts commonly use. */
const HELM_ONLY = new Set(['required']);

const SPRIG: FuncMap = Object.freeze(
  Object.fromEntries(
    Object.entries({
      ...stringFuncs,
      ...stringListFuncs,
      ...conversionFuncs,
      ...jsonFuncs,
      ...regexFuncs,
      ...mathFuncs,
      ...defaultFuncs,
      ...encodingFuncs,
      ...listFuncs,
      ...dictFuncs,
      ...reflectFuncs,
      ...semverFuncs,
      ...pathFuncs,
    }).filter(([name]) => !HELM_ONLY.has(name)),
  ),
) as FuncMap;

const HELM: FuncMap = Object.freeze({ required: defaultFuncs.required }) as FuncMap;

/** Pure Sprig (the Go-conformance oracle's function set, hermetic part). */
export function sprigFuncs(): FuncMap {
  return SPRIG;
}

const injectorCache = new Map<string, FuncMap>();
const templateCache = new Map<string, FuncMap>();

function cacheKey(options: InjectorOptions): string | null {
  // A caller-supplied environment object cannot be keyed safely; build fresh maps for it.
  if (options.env !== undefined) return null;
  return options.allowEnv === true ? 'env' : 'noenv';
}

/** Istio's injection functions only; `env` works only with `allowEnv`. */
export function injectorFuncs(options: InjectorOptions = {}): FuncMap {
  const key = cacheKey(options);
  if (key === null) return Object.freeze(buildInjectorFuncs(options)) as FuncMap;
  let m = injectorCache.get(key);
  if (m === undefined) {
    m = Object.freeze(buildInjectorFuncs(options)) as FuncMap;
    injectorCache.set(key, m);
  }
  return m;
}

/** Sprig + Helm's `required` + Istio's functions (Istio's win): what templates are rendered with. */
export function templateFuncs(options: InjectorOptions = {}): FuncMap {
  const key = cacheKey(options);
  const build = (): FuncMap => Object.freeze({ ...SPRIG, ...HELM, ...injectorFuncs(options) }) as FuncMap;
  if (key === null) return build();
  let m = templateCache.get(key);
  if (m === undefined) {
    m = build();
    templateCache.set(key, m);
  }
  return m;
}
