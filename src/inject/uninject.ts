/**
 * @module inject/uninject
 * Take an injection back out: the items the status annotation lists are removed by name, and
 * its undo entries restore what the injection changed (labels, annotations, a user's
 * customised sidecar container, ...), so `uninject(inject(x))` is `x`. A pod injected by Istio
 * (status without undo) loses the listed items and gets back the containers saved in
 * `proxy.istio.io/overrides`; the labels and annotations Istio added stay (a warning says so).
 */
import type { LoadedConfig } from '../config/types.js';
import { createPatch } from '../patch/index.js';
import { isPlainObject, type JsonObject } from '../util/json.js';
import { readPodInput } from './pod-input.js';
import { setMember } from './proto.js';
import { statusAnnotation, stripPod } from './strip.js';
import type { UninjectResult } from './types.js';

export function uninjectPod(pod: unknown, config: LoadedConfig): UninjectResult {
  const input = readPodInput(pod);
  const key = config.injectionKeys.status;
  if (statusAnnotation(input.pod, key) === undefined) {
    return { kind: 'not-injected', reason: `the pod has no ${key} annotation, so no injection is recorded on it; nothing to undo` };
  }
  const warnings: string[] = [];
  const work = input.pod;
  const { previous } = stripPod(work, config, warnings);
  if (previous !== undefined && !previous.ours) {
    warnings.push(`annotation ${key} was written by another injector (no undo record): the listed containers and volumes were removed; labels and annotations it added are kept`);
  }
  if (input.hasManagedFields) {
    // managedFields were set aside unread; the pod had metadata, so it still has it.
    const meta = isPlainObject(work.metadata) ? work.metadata : ((work as Record<string, unknown>).metadata = {});
    setMember(meta as Record<string, unknown>, 'managedFields', ((pod as JsonObject).metadata as Record<string, unknown>).managedFields);
  }
  return { kind: 'uninjected', pod: work, patch: createPatch(pod, work), removed: previous!.status, warnings };
}
