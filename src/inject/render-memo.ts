/**
 * @module inject/render-memo
 * Renders remembered by what the template reads. A template reads a few chains of its data
 * (`.ObjectMeta`, `.Spec.Containers`, `.Values...`: Template.rootReads, from the parse tree),
 * and pods that agree on those chains render the same overlay: a DaemonSet's pods differ only in
 * their node affinity, so the result cache misses on each of them while this memo does not.
 *
 * Kept per loaded config (the chains into the values and the mesh config, the same for every
 * pod of it, are left out of the key; a reloaded config starts empty) and per template, the
 * most recently used entries kept. A template that may read its data whole, or depends on the
 * environment, is never memoised; nor is a render that failed. With the debug checks on (the
 * test run), every hit is rendered again and must give the same text.
 *
 * The key is the JSON of what the template reads, so its cost grows with the pod while a
 * render's grows with the overlay: for a pod with 2,000 environment variables the key cost four
 * times the render it could save. So a pod whose JSON is longer than KEY_PER_TEXT times the
 * template's last rendered text is rendered without one (sized by a walk that stops at that
 * limit, jsonLengthWithin).
 *
 * Making the key costs about half a render of the built-in template, so where it does not pay
 * (a cluster of distinct workloads: every key new) the memo steps aside: a window of WINDOW
 * lookups with fewer than MIN_HITS hits turns it off for the next SKIP renders, then it tries
 * again, standing aside twice as long after each window that failed again (up to 16 times), so
 * the probing costs little where it never pays. Only the time changes: a render from the memo
 * and a fresh one are the same overlay.
 */
import { InjectorError } from '../errors.js';
import type { LoadedConfig } from '../config/types.js';
import type { ExecuteOptions, Template } from '../template/index.js';
import { jsonLengthWithin, type JsonObject } from '../util/json.js';
import { DEBUG_CHECKS } from './cow.js';
import type { TemplateData } from './data.js';
import { freezeOverlay, renderText, parseOverlay } from './render-overlay.js';

/** Per template: a DaemonSet's pods share one entry, so this covers the DaemonSets of a busy cluster. */
const ENTRIES = 64;
/** Keys past this (a pod with huge annotations) are not kept. */
const MAX_KEY = 64 * 1024;
/** Characters of keys and texts kept per template (about 1 MB): pods with large annotations evict sooner. */
const MAX_CHARS = 1024 * 1024;

/**
 * Key characters per character of rendered text past which a key costs more than the render and
 * read it could save, even when every lookup hits: serialising a key costs about 4 ns a
 * character, rendering and reading the built-in template about 20 ns a character of its output
 * and Istio's sidecar template about 17 (measured on this project's bench machine).
 */
const KEY_PER_TEXT = 3;
/** The smallest size limit: a short overlay still pays for the key of a small pod. */
const MIN_KEY_LIMIT = 4096;

const WINDOW = 512;
const MIN_HITS = WINDOW / 16;
const SKIP = 8 * WINDOW;

interface Entry {
  readonly text: string;
  readonly overlay: JsonObject;
}

interface Memo {
  readonly entries: Map<string, Entry>;
  /** Characters of the keys and texts in `entries`. */
  chars: number;
  /** Lookups and hits in the current window. */
  lookups: number;
  hits: number;
  /** Renders left to do without the memo. */
  skip: number;
  /** Windows in a row that closed with too few hits. */
  failed: number;
  /** Length of the text this template rendered last (0: none yet). */
  textChars: number;
}

const MEMOS = new WeakMap<LoadedConfig, Map<string, Memo>>();

/**
 * Since the process started: renders served from the memo, kept in it, done past it while it
 * stood aside, and done past it because the pod was too large for a key to pay.
 */
export const memoCounts = { hits: 0, stored: 0, skipped: 0, large: 0 };

/**
 * Render `name` with `data` (the template data of `pod`) as renderOverlay does, from the memo
 * when the pod's read chains were seen before.
 */
export function renderMemoized(
  config: LoadedConfig,
  name: string,
  template: Template,
  data: TemplateData,
  options: ExecuteOptions | undefined,
  pod: unknown,
): JsonObject {
  const chains = template.rootReads();
  const memo = chains === null ? undefined : memoOf(config, name);
  let key: string | undefined;
  if (memo !== undefined && memo.skip > 0) {
    memo.skip--;
    memoCounts.skipped++;
  } else if (memo !== undefined) {
    // The pod's JSON bounds the key's length (the chains read parts of it).
    const limit = memo.textChars === 0 ? MAX_KEY : Math.min(MAX_KEY, Math.max(MIN_KEY_LIMIT, KEY_PER_TEXT * memo.textChars));
    if (jsonLengthWithin(pod, limit) <= limit) key = data.readKey(chains!);
    else memoCounts.large++;
  }
  if (memo === undefined || key === undefined || key.length > MAX_KEY) {
    const text = renderText(name, template, data, options);
    if (memo !== undefined) memo.textChars = text.length;
    return parseOverlay(name, text);
  }
  const { entries } = memo;
  const hit = entries.get(key);
  count(memo, hit !== undefined);
  if (hit !== undefined) {
    entries.delete(key);
    entries.set(key, hit); // most recently used last
    memoCounts.hits++;
    if (DEBUG_CHECKS && renderText(name, template, data, options) !== hit.text) {
      throw new InjectorError('SI_INTERNAL', `debug check: template ${name} rendered differently for data the render memo took as the same`);
    }
    return hit.overlay;
  }
  const text = renderText(name, template, data, options);
  memo.textChars = text.length;
  // Kept, so shared with later pods: frozen.
  const overlay = freezeOverlay(parseOverlay(name, text));
  entries.set(key, { text, overlay });
  memo.chars += key.length + text.length;
  // The least recently used leave first (a Map iterates in insertion order).
  for (const [k, e] of entries) {
    if (entries.size <= ENTRIES && memo.chars <= MAX_CHARS) break;
    entries.delete(k);
    memo.chars -= k.length + e.text.length;
  }
  memoCounts.stored++;
  return overlay;
}

/** Entries and characters kept for `config`'s templates (what the memory bound holds to). */
export function memoFootprint(config: LoadedConfig): { entries: number; chars: number } {
  let entries = 0;
  let chars = 0;
  for (const m of MEMOS.get(config)?.values() ?? []) {
    entries += m.entries.size;
    chars += m.chars;
  }
  return { entries, chars };
}

function memoOf(config: LoadedConfig, name: string): Memo {
  let perConfig = MEMOS.get(config);
  if (perConfig === undefined) MEMOS.set(config, (perConfig = new Map()));
  let memo = perConfig.get(name);
  if (memo === undefined) perConfig.set(name, (memo = { entries: new Map(), chars: 0, lookups: 0, hits: 0, skip: 0, failed: 0, textChars: 0 }));
  return memo;
}

/** Close a window of lookups: too few hits, and the memo stands aside for a while. */
function count(memo: Memo, hit: boolean): void {
  memo.lookups++;
  if (hit) memo.hits++;
  if (memo.lookups < WINDOW) return;
  if (memo.hits < MIN_HITS) {
    memo.skip = SKIP * 2 ** Math.min(memo.failed, 4);
    memo.failed++;
  } else {
    memo.failed = 0;
  }
  memo.lookups = 0;
  memo.hits = 0;
}
