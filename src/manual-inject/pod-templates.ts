/**
 * @module manual-inject/pod-templates
 * The glue between a manifest's pod templates and the pod-level core: which namespace a template
 * is injected for, how it is named in messages, how the core's result goes back into the
 * template (key order kept), and where an error points in the file.
 */
import { InjectorError, type SourceLocation } from '../errors.js';
import { replaceDocument, writeManifest, type ManifestDocument, type PodTemplateRef } from '../manifest-io/index.js';
import { formatPath, locate } from '../yaml/index.js';
import { setOwn } from '../util/own.js';
import { isPlainObject, type JsonObject, type JsonValue } from '../util/json.js';
import type { DocumentNote, ManualOptions, ManualOutput, TemplateSubject } from './types.js';

export const DEFAULT_NAMESPACE = 'default';

export function subjectOf(ref: PodTemplateRef, document: number, options: ManualOptions): TemplateSubject {
  return {
    document,
    ...(ref.owner.path.length > 0 ? { item: formatPath(ref.owner.path) } : {}),
    kind: ref.owner.kind,
    name: ref.owner.name,
    namespace: ref.owner.namespace ?? (options.namespace || DEFAULT_NAMESPACE),
    path: ref.path,
  };
}

/** `Deployment "shop/web" (document 2)`: documents are counted from 1, as in error messages. */
export function describeSubject(s: TemplateSubject): string {
  return `${describeWorkload(s)} (document ${s.document + 1}${s.item === undefined ? '' : `, ${s.item}`})`;
}

/** `Deployment "shop/web"`, plus `at items[2]` inside a List (for messages that carry the document already). */
export function describeWorkload(s: TemplateSubject): string {
  return `${s.kind} "${s.namespace}/${s.name}"${s.item === undefined ? '' : ` at ${s.item}`}`;
}

/** The workload that owns a template, as the core's `ctx.owner` (none for a bare Pod). */
export function ownerFor(ref: PodTemplateRef): { kind: string; name: string; apiVersion: string } | undefined {
  return ref.owner.kind === 'Pod' && ref.path.length === ref.owner.path.length
    ? undefined
    : { kind: ref.owner.kind, name: ref.owner.name, apiVersion: ref.owner.apiVersion };
}

/** What the core gets: a bare Pod whole (so it sees its TypeMeta), a workload's template as `{metadata, spec}`. */
export function podInput(root: JsonValue, ref: PodTemplateRef): JsonObject {
  if (ownerFor(ref) !== undefined) return ref.template;
  let node: JsonValue = root;
  for (const seg of ref.path) node = (node as Record<string | number, JsonValue>)[seg];
  return node as JsonObject;
}

/**
 * The template with metadata and spec taken from the core's pod, every other key kept where it
 * was. A template that had no metadata gets it first (as kubectl prints templates).
 */
export function templateFromPod(original: JsonObject, pod: JsonObject): JsonObject {
  const out: JsonObject = {};
  const metadata = isPlainObject(pod.metadata) ? (pod.metadata as JsonObject) : undefined;
  const spec = pod.spec as JsonObject;
  if (metadata !== undefined && !Object.hasOwn(original, 'metadata')) out.metadata = metadata;
  for (const key of Object.keys(original)) {
    if (key === 'metadata') {
      if (metadata !== undefined) out.metadata = metadata;
    } else if (key === 'spec') out.spec = spec;
    else setOwn(out, key, original[key]);
  }
  if (!Object.hasOwn(out, 'spec')) out.spec = spec;
  return out;
}

/**
 * Where in the file an error about the template at `path` belongs: the line of the template if
 * it can be found (only computed on this error path), else the document's first line; `where`
 * when there is no document text (a KRM item).
 */
export function templateLocation(where: SourceLocation, doc: ManifestDocument | undefined, path: ReadonlyArray<string | number>): SourceLocation {
  if (doc === undefined) return where;
  const base: SourceLocation = { file: doc.source, document: doc.index, line: doc.line };
  if (doc.format !== 'yaml' || path.length === 0) return base;
  const pos = locate(doc.text, path);
  return pos === undefined ? base : { ...base, line: doc.line + pos.line - 1 };
}

/** An error from the core, re-thrown with the document and line it concerns (code kept). */
export function locatedError(err: unknown, where: SourceLocation, subject: string): unknown {
  if (!(err instanceof InjectorError) || err.location?.line !== undefined) return err;
  const located = new InjectorError(err.code, `${subject}: ${err.message}`, { cause: err, location: { ...err.location, ...where }, details: err.details });
  Object.defineProperty(located, 'name', { value: err.name });
  return located;
}

/** What one operation did to one document's object. */
export interface ObjectResult {
  /** The object with its templates changed (the input itself when nothing changed). */
  value: JsonValue;
  notes: DocumentNote[];
  changed: number;
  unchanged: number;
}

/**
 * Run a per-object operation over a manifest stream: documents it changed are rewritten
 * (edited in place where they changed, manifest-io/write.ts),
 * all others (and empty documents) are kept byte for byte. Throws whatever the operation throws.
 */
export function mapDocuments(
  docs: readonly ManifestDocument[],
  operate: (value: JsonValue, index: number, where: SourceLocation, doc: ManifestDocument) => ObjectResult,
): ManualOutput {
  const notes: DocumentNote[] = [];
  let changed = 0;
  let unchanged = 0;
  const out = docs.map((doc) => {
    if (doc.value === null) return doc;
    const result = operate(doc.value, doc.index, { file: doc.source, document: doc.index, line: doc.line }, doc);
    notes.push(...result.notes);
    changed += result.changed;
    unchanged += result.unchanged;
    return result.changed > 0 ? replaceDocument(doc, result.value) : doc;
  });
  return { text: writeManifest(out), notes, changed, unchanged };
}
