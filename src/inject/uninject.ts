/**
 * @module inject/uninject
 * Take an injection back out: the items the status annotation lists are removed by name, and
 * its undo entries restore what the injection changed (labels, annotations, a user's
 * customised sidecar container, ...), so `uninject(inject(x))` is `x`. A pod injected by another
 * injector (status without undo: Istio's) loses the listed items, and the profiles' strip hooks
 * put back what they know (src/istio: the containers saved in `proxy.istio.io/overrides`, the
 * rewritten probes); the labels and annotations it added stay (a warning says so).
 */
import type { LoadedConfig } from '../config/types.js';
import { createPatch } from '../patch/index.js';
import { setOwn } from '../util/own.js';
import { readPodInput } from './pod-input.js';
import { asJson } from './pod-types.js';
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
    warnings.push(
      `annotation ${key} was written by another injector (no undo record): the listed containers and volumes were removed; labels and annotations it added are kept`,
    );
  }
  if (input.hasManagedFields) {
    // managedFields were set aside unread; the pod had metadata, so it still has it.
    work.metadata ??= {};
    setOwn(work.metadata, 'managedFields', input.received.metadata?.managedFields);
  }
  return { kind: 'uninjected', pod: asJson(work), patch: createPatch(pod, work), removed: previous!.status, warnings };
}
