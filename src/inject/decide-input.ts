/**
 * @module inject/decide-input
 * Reads the few pod fields the injection decision needs from an untrusted object: labels,
 * annotations, namespace, hostNetwork. Nothing here throws: a field of the wrong type is
 * treated as absent (or as an invalid value) and reported as a warning, so a malformed pod
 * gets a clear decision instead of a crash.
 */
import { describeValue as describe, quote } from '../util/describe.js';
import { isPlainObject } from '../util/json.js';

/** A string map read from the pod; entries whose value is not a string are kept apart. */
interface StringMapView {
  values: Map<string, string>;
  /** Key -> description of the non-string value found (e.g. `a number (1)`). */
  invalid: Map<string, string>;
}

export interface PodView {
  labels: StringMapView;
  annotations: StringMapView;
  namespace: string;
  namespaceFromRequest: boolean;
  hostNetwork: unknown;
}

export function readDecisionView(pod: Record<string, unknown>, requestNamespace: string, warnings: string[]): PodView {
  let meta: Record<string, unknown> = {};
  if (isPlainObject(pod.metadata)) meta = pod.metadata;
  else if (pod.metadata !== undefined && pod.metadata !== null) warnings.push(`metadata is ${describe(pod.metadata)}, not a map; treated as empty`);
  let spec: Record<string, unknown> = {};
  if (isPlainObject(pod.spec)) spec = pod.spec;
  else if (pod.spec !== undefined && pod.spec !== null) warnings.push(`spec is ${describe(pod.spec)}, not a map; treated as empty`);

  const ns = meta.namespace;
  const hasNs = typeof ns === 'string' && ns !== '';
  if (ns !== undefined && ns !== null && typeof ns !== 'string')
    warnings.push(`metadata.namespace is ${describe(ns)}, not a string; the request's namespace is used`);
  return {
    labels: readStringMap(meta.labels, 'metadata.labels', warnings),
    annotations: readStringMap(meta.annotations, 'metadata.annotations', warnings),
    namespace: hasNs ? ns : requestNamespace,
    namespaceFromRequest: !hasNs,
    hostNetwork: spec.hostNetwork,
  };
}

function readStringMap(raw: unknown, where: string, warnings: string[]): StringMapView {
  const view: StringMapView = { values: new Map(), invalid: new Map() };
  if (raw === undefined || raw === null) return view;
  if (!isPlainObject(raw)) {
    warnings.push(`${where} is ${describe(raw)}, not a map; ignored`);
    return view;
  }
  for (const key of Object.keys(raw)) {
    const v = raw[key];
    if (typeof v === 'string') view.values.set(key, v);
    else view.invalid.set(key, describe(v));
  }
  if (view.invalid.size > 0) {
    const keys = [...view.invalid.keys()].slice(0, 3).map(quote).join(', ');
    const more = view.invalid.size > 3 ? ` and ${view.invalid.size - 3} more` : '';
    warnings.push(`${where}: ${keys}${more} not strings; ignored`);
  }
  return view;
}
