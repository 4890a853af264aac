/**
 * @module inject/render-overlay
 * Run one compiled template and read its output as a pod overlay: YAML 1.1 as Kubernetes reads
 * it, a map holding only `metadata` and/or `spec`. Anything else is the template author's bug,
 * reported with the template's name and the rendered lines around the problem, because the
 * rendered text is what they cannot see.
 */
import { InjectionError, InjectorError, TemplateError } from '../errors.js';
import { parseYamlDocument, readPlainBlockYaml } from '../yaml/index.js';
import { DEBUG_CHECKS } from './cow.js';
import type { ExecuteOptions, Template } from '../template/index.js';
import { deepEqual, deepFreeze, isPlainObject, type JsonObject } from '../util/json.js';
import { quote } from '../util/describe.js';
import { TextLru } from './text-lru.js';

/** Keys a rendered overlay may have: it is merged into the pod's metadata and spec. */
const OVERLAY_KEYS = new Set(['metadata', 'spec']);

/** Render `template` with `data` and parse the result. Empty output is an empty overlay. */
export function renderOverlay(name: string, template: Template, data: unknown, options?: ExecuteOptions): JsonObject {
  return parseOverlay(name, renderText(name, template, data, options));
}

/** Render `template` with `data`; a failure is a TemplateError. */
export function renderText(name: string, template: Template, data: unknown, options?: ExecuteOptions): string {
  try {
    return template.execute(data, options);
  } catch (err) {
    if (err instanceof TemplateError) throw err;
    if (err instanceof RangeError) {
      throw new TemplateError('SI_TEMPLATE_EXEC', `template: ${name}: nested too deeply to render`, { cause: err });
    }
    throw err;
  }
}

/**
 * Parsed overlays by rendered text. Pods of one workload render the same text, and reading it
 * is a good part of an injection, so recent results are kept (deep-frozen: the merge never
 * modifies its inputs, and freezing makes sure of it).
 *
 * Only a text seen before is kept: in a cluster of many different workloads most texts come
 * once, and keeping each one's overlay (a few hundred objects) until it is evicted made the
 * garbage collector copy it into the old generation and collect it there. A text seen once is
 * remembered as text only (one string), and its overlay is kept the second time.
 */
const CACHE_ENTRIES = 128;
const CACHE_MAX_TEXT = 64 * 1024;
const BUCKET_ENTRIES = 4;

const kept = new TextLru<JsonObject>(CACHE_ENTRIES, BUCKET_ENTRIES);
const seenOnce = new TextLru<true>(CACHE_ENTRIES, BUCKET_ENTRIES);

/**
 * Parse rendered text as a pod overlay. Do not modify the result: it is frozen when kept, and
 * otherwise it is still this text's overlay (freezeOverlay makes it safe to share).
 */
export function parseOverlay(name: string, text: string): JsonObject {
  const cached = kept.get(name, text);
  if (cached !== undefined) return cached;
  const overlay = parseOverlayText(name, text);
  if (text.length > CACHE_MAX_TEXT) return overlay;
  if (seenOnce.get(name, text) === undefined) {
    seenOnce.add(name, text, true);
    return overlay;
  }
  seenOnce.delete(name, text);
  kept.add(name, text, overlay);
  return deepFreeze(overlay);
}

/** Freeze an overlay from parseOverlay before sharing it between pods (the render memo does). */
export function freezeOverlay(overlay: JsonObject): JsonObject {
  return Object.isFrozen(overlay) ? overlay : deepFreeze(overlay);
}

function parseOverlayText(name: string, text: string): JsonObject {
  // The one-pass reader takes the plain YAML templates render (same value as the library, or
  // undefined); anything else, and every error, is the library's.
  let value: unknown = readPlainBlockYaml(text);
  if (value === undefined) {
    try {
      value = parseYamlDocument(text, { file: `the output of template ${quote(name)}` }).value;
    } catch (err) {
      if (!(err instanceof InjectorError)) throw err;
      const line = err.location?.line;
      throw new InjectionError(
        'SI_INJECT_RENDER_OUTPUT',
        `template ${quote(name)} rendered text that is not valid YAML${line !== undefined ? ` (line ${line})` : ''}: ${err.message}${excerpt(text, line)}`,
        { cause: err, details: { template: name, line } },
      );
    }
  } else if (DEBUG_CHECKS) {
    checkFastRead(value, text);
  }
  if (value === null || value === undefined) return {};
  if (!isPlainObject(value)) {
    throw new InjectionError(
      'SI_INJECT_RENDER_OUTPUT',
      `template ${quote(name)} rendered ${Array.isArray(value) ? 'a list' : `a ${typeof value}`}, not a pod overlay (a map with metadata and/or spec)${excerpt(text, 1)}`,
      { details: { template: name } },
    );
  }
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (!OVERLAY_KEYS.has(key)) {
      const line = lineOfTopKey(text, key);
      throw new InjectionError(
        'SI_INJECT_RENDER_OUTPUT',
        `template ${quote(name)} rendered a top-level ${quote(key)}; an injection template renders only the pod's metadata and spec (check the indentation of this line)${excerpt(text, line)}`,
        { details: { template: name, key, line } },
      );
    }
    if (v !== null && !isPlainObject(v)) {
      const line = lineOfTopKey(text, key);
      throw new InjectionError(
        'SI_INJECT_RENDER_OUTPUT',
        `template ${quote(name)} rendered ${key} as ${Array.isArray(v) ? 'a list' : `a ${typeof v}`}; it must be a map${excerpt(text, line)}`,
        {
          details: { template: name, key, line },
        },
      );
    }
  }
  // `spec:` or `metadata:` with nothing under it (a conditional block that rendered nothing) is
  // YAML null, and null in a strategic merge patch deletes the key: the pod would lose its spec.
  // Nothing rendered means nothing to merge.
  for (const key of OVERLAY_KEYS) if (Object.hasOwn(value, key) && value[key] === null) delete value[key];
  return value as JsonObject;
}

/** Debug check: the one-pass reader's value is the library's (which must not fail on it). */
function checkFastRead(value: unknown, text: string): void {
  let library: unknown;
  try {
    library = parseYamlDocument(text).value;
  } catch (err) {
    throw new InjectorError(
      'SI_INTERNAL',
      `debug check: the one-pass YAML reader took rendered text the library refuses: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
  if (!deepEqual(value, library) || JSON.stringify(value) !== JSON.stringify(library)) {
    throw new InjectorError('SI_INTERNAL', 'debug check: the one-pass YAML reader and the library read rendered text differently');
  }
}

function lineOfTopKey(text: string, key: string): number | undefined {
  const lines = text.split(/\r?\n/);
  const re = new RegExp(`^["']?${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}["']?\\s*:`);
  const i = lines.findIndex((l) => re.test(l));
  return i >= 0 ? i + 1 : undefined;
}

/** A few rendered lines around `line` (1-based), the offending one marked. */
export function excerpt(text: string, line: number | undefined): string {
  if (line === undefined) return '';
  const lines = text.split(/\r?\n/);
  const from = Math.max(1, line - 2);
  const to = Math.min(lines.length, line + 2);
  const width = String(to).length;
  const out: string[] = [];
  for (let n = from; n <= to; n++) {
    const content = lines[n - 1].length > 160 ? `${lines[n - 1].slice(0, 160)}...` : lines[n - 1];
    out.push(`${n === line ? '>' : ' '} ${String(n).padStart(width)} | ${content}`);
  }
  return `\nrendered output:\n${out.join('\n')}`;
}
