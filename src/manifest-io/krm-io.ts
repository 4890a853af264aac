/**
 * @module manifest-io/krm-io
 * KRM function mode: `kpt fn eval --exec`, `kpt fn render` and kustomize exec plugins send one
 * `ResourceList` (`config.kubernetes.io/v1`) on stdin and read one back on stdout. Its `items` are
 * the resources (with orchestration annotations such as `config.kubernetes.io/index` and
 * `internal.config.kubernetes.io/path` that must survive untouched), `functionConfig` carries the
 * function's configuration, and `results` reports findings (severity, message, resourceRef,
 * field, file). This module reads and writes that envelope; what happens to the items is the
 * caller's business.
 */
import { InputError } from '../errors.js';
import { isPlainObject, type JsonObject, type JsonValue } from '../util/json.js';
import type { ManifestDocument } from './documents.js';
import { stringifyObject } from '../yaml/index.js';
import { setOwn } from '../util/own.js';

const RESOURCE_LIST_KIND = 'ResourceList';
/** The spec's version first; older kustomize releases sent the beta/alpha ones. */
const RESOURCE_LIST_API_VERSIONS = ['config.kubernetes.io/v1', 'config.kubernetes.io/v1beta1', 'config.kubernetes.io/v1alpha1'];

/** Annotations kpt/kustomize put on items to find their file again (current names, then legacy). */
const PATH_ANNOTATIONS = ['internal.config.kubernetes.io/path', 'config.kubernetes.io/path'];
const INDEX_ANNOTATIONS = ['internal.config.kubernetes.io/index', 'config.kubernetes.io/index'];

export type KrmSeverity = 'error' | 'warning' | 'info';

/** One entry of `results` (fields as in kyaml's fn/framework Result). */
export interface KrmResult {
  message: string;
  severity?: KrmSeverity;
  resourceRef?: { apiVersion: string; kind: string; name: string; namespace?: string };
  field?: { path: string; currentValue?: JsonValue; proposedValue?: JsonValue };
  file?: { path: string; index?: number };
  tags?: Record<string, string>;
}

export interface ResourceList {
  readonly apiVersion: string;
  readonly items: readonly JsonObject[];
  /** The function's configuration, if the orchestrator passed one. */
  readonly functionConfig: JsonObject | undefined;
  /** The envelope as received (other fields are written back unchanged). */
  readonly envelope: JsonObject;
  /** Where it came from, for messages and to write back in the same format. */
  readonly document: ManifestDocument;
}

export function isResourceList(value: unknown): boolean {
  return (
    isPlainObject(value) && value.kind === RESOURCE_LIST_KIND && typeof value.apiVersion === 'string' && RESOURCE_LIST_API_VERSIONS.includes(value.apiVersion)
  );
}

/**
 * The ResourceList of a KRM function call: the stream holds exactly one non-empty document and it
 * is a ResourceList. Undefined for an ordinary manifest (the CLI then works on its documents).
 */
export function findResourceList(docs: readonly ManifestDocument[]): ResourceList | undefined {
  const present = docs.filter((d) => d.value !== null);
  if (present.length !== 1 || !isResourceList(present[0].value)) return undefined;
  return readResourceList(present[0]);
}

export function readResourceList(doc: ManifestDocument): ResourceList {
  const where = { file: doc.source, document: doc.index, line: doc.line };
  const envelope = doc.value;
  if (!isResourceList(envelope)) {
    throw new InputError('SI_INPUT_OBJECT', `not a ResourceList (apiVersion ${RESOURCE_LIST_API_VERSIONS[0]}, kind ResourceList)`, {
      location: where,
    });
  }
  const obj = envelope as JsonObject;
  const rawItems = obj.items ?? [];
  if (!Array.isArray(rawItems)) {
    throw new InputError('SI_INPUT_OBJECT', 'ResourceList items must be a list of resources', { location: where });
  }
  rawItems.forEach((item, i) => {
    if (!isPlainObject(item)) {
      throw new InputError('SI_INPUT_OBJECT', `ResourceList items[${i}] must be a resource (an object)`, { location: where });
    }
  });
  const fc = obj.functionConfig;
  if (fc !== undefined && fc !== null && !isPlainObject(fc)) {
    throw new InputError('SI_INPUT_OBJECT', 'ResourceList functionConfig must be an object', { location: where });
  }
  return {
    apiVersion: obj.apiVersion as string,
    items: rawItems as JsonObject[],
    functionConfig: (fc ?? undefined) as JsonObject | undefined,
    envelope: obj,
    document: doc,
  };
}

/**
 * A result about one item: resourceRef from its apiVersion/kind/metadata, file from the
 * orchestrator's path/index annotations (when present).
 */
export function resultFor(item: JsonObject, severity: KrmSeverity, message: string, fieldPath?: string): KrmResult {
  const result: KrmResult = { message, severity };
  const metadata = isPlainObject(item.metadata) ? item.metadata : {};
  const annotations = isPlainObject(metadata.annotations) ? metadata.annotations : {};
  if (typeof item.apiVersion === 'string' && typeof item.kind === 'string') {
    result.resourceRef = { apiVersion: item.apiVersion, kind: item.kind, name: typeof metadata.name === 'string' ? metadata.name : '' };
    if (typeof metadata.namespace === 'string' && metadata.namespace !== '') result.resourceRef.namespace = metadata.namespace;
  }
  if (fieldPath !== undefined) result.field = { path: fieldPath };
  const path = firstString(annotations, PATH_ANNOTATIONS);
  if (path !== undefined) {
    result.file = { path };
    const index = Number(firstString(annotations, INDEX_ANNOTATIONS));
    if (Number.isInteger(index) && index >= 0) result.file.index = index;
  }
  return result;
}

function firstString(obj: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const k of keys) if (typeof obj[k] === 'string') return obj[k] as string;
  return undefined;
}

/**
 * The output ResourceList as text (YAML, or JSON if the input was JSON): the input envelope with
 * `items` replaced and `results` appended to any it already had. `functionConfig` and any other
 * envelope field are written back unchanged.
 */
export function writeResourceList(input: ResourceList, items: readonly JsonObject[], results: readonly KrmResult[] = []): string {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(input.envelope)) {
    if (k === 'items') out.items = [...items];
    else if (k !== 'results') setOwn(out, k, v);
  }
  if (!('items' in out)) out.items = [...items];
  const previous = Array.isArray(input.envelope.results) ? input.envelope.results : [];
  const all = [...previous, ...(results as unknown as JsonValue[])];
  if (all.length > 0) out.results = all;
  const doc = input.document;
  if (doc.format === 'json') return JSON.stringify(out, null, 2).replaceAll('\n', doc.eol) + doc.eol;
  return stringifyObject(out, { eol: doc.eol });
}

/** A KRM function exits non-zero when any result is an error (kyaml's Results.ExitCode). */
export function krmExitCode(results: readonly KrmResult[]): 0 | 1 {
  return results.some((r) => r.severity === 'error') ? 1 : 0;
}
