/**
 * @module inject/data
 * The data templates render with (`.` at the top of every injection template): a lazy Go
 * struct whose fields come from the core and from the config's profiles (each profile's
 * `templateFields` hook gets the fields so far and returns the list templates see, in Go's
 * declaration order). The core's own fields:
 *
 * | field | Go type | from |
 * |---|---|---|
 * | Values | map[string]interface {} | config values (a private copy when a template may modify it) |
 * | Revision | string | values.revision |
 * | NativeSidecars | bool | config nativeSidecars |
 *
 * The Go type is Istio's `*inject.SidecarTemplateData`, whose shape Istio's templates expect
 * (src/istio adds its other fields). Fields are computed when a template first reads them.
 */
import type { LoadedConfig } from '../config/types.js';
import { GO_OBJECT, NO_FIELD, type GoFunc, type GoObject } from '../template/value.js';
import { chainKey } from '../template/value-key.js';
import { cloneJson } from '../util/json.js';
import type { PodHooks, TemplateField } from './profile-hooks.js';

/** `*inject.SidecarTemplateData`: what `.` is at the top of every injection template. */
export class TemplateData implements GoObject {
  readonly [GO_OBJECT] = true as const;
  readonly goType = '*inject.SidecarTemplateData';
  // A handful of fields: a scan is as fast as a map and builds nothing per pod.
  readonly #fields: readonly TemplateField[];
  #cache = new Map<string, unknown>();

  constructor(fields: readonly TemplateField[]) {
    this.#fields = fields;
  }

  getField(name: string): unknown {
    const cached = this.#cache.get(name);
    if (cached !== undefined || this.#cache.has(name)) return cached;
    const fields = this.#fields;
    for (let i = 0; i < fields.length; i++) {
      if (fields[i].name !== name) continue;
      const v = fields[i].get();
      this.#cache.set(name, v);
      return v;
    }
    return NO_FIELD;
  }

  getMethod(): GoFunc | undefined {
    return undefined;
  }

  /**
   * The render memo's key for a template that reads `chains` (Template.rootReads): each chain's
   * value, fields that are the same for every pod of this config left out. Undefined when a
   * value cannot be keyed or a chain names no field (the render reports that).
   */
  readKey(chains: readonly (readonly string[])[]): string | undefined {
    let out = '';
    for (const chain of chains) {
      const field = this.#fields.find((f) => f.name === chain[0]);
      if (field === undefined) return undefined;
      if (field.perConfig === true) continue;
      const k = chainKey(this.getField(chain[0]), chain, 1);
      if (k === undefined) return undefined;
      out += `${k};`;
    }
    return out;
  }

  fieldNames(): readonly string[] {
    return this.#fields.map((f) => f.name);
  }

  toJSON(): unknown {
    const out: Record<string, unknown> = {};
    for (const f of this.fieldNames()) {
      const v = this.getField(f);
      out[f] = typeof v === 'object' && v !== null && 'toJSON' in v ? (v as { toJSON(): unknown }).toJSON() : v;
    }
    return out;
  }
}

/** The template data for one pod: the core's fields, then each profile's hook in order. */
export function templateData(config: LoadedConfig, hooks: readonly PodHooks[]): TemplateData {
  const values = config.values;
  const cloneValues = templatesMayMutate(config);
  let fields: readonly TemplateField[] = [
    { name: 'Values', get: () => (cloneValues ? cloneJson(values) : values), perConfig: true },
    { name: 'Revision', get: () => revisionOf(config), perConfig: true },
    { name: 'NativeSidecars', get: () => config.nativeSidecars, perConfig: true },
  ];
  for (const h of hooks) if (h.templateFields !== undefined) fields = h.templateFields(fields);
  return new TemplateData(fields);
}

/** The revision this injector serves: values.revision ("" for the default revision). */
export function revisionOf(config: Pick<LoadedConfig, 'values'>): string {
  const r = config.values.revision;
  return typeof r === 'string' ? r : '';
}

/** Template functions that write into a map they are given (Sprig's, must- variants included). */
const MUTATING: ReadonlySet<string> = new Set(['set', 'unset', 'merge', 'mergeOverwrite', 'mustMerge', 'mustMergeOverwrite', 'push']);

const MUTATES = new WeakMap<object, boolean>();

/**
 * Whether any of the config's templates might modify `.Values` (decided once per config): one
 * calls such a function. Read from the parse trees, so a word in a comment (Istio's grpc-agent
 * template says "must be set by user") does not cost every render a copy of the values.
 */
export function templatesMayMutate(config: LoadedConfig): boolean {
  let m = MUTATES.get(config);
  if (m === undefined) {
    m = false;
    for (const t of config.compiledTemplates.values()) if (t.callsAny(MUTATING)) m = true;
    MUTATES.set(config, m);
  }
  return m;
}
