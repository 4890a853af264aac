/**
 * @module manual-inject/uninject-manifest
 * `uninject -f`: undo an injection at the manifest level. Each pod template that carries the
 * status annotation goes through the core's `uninjectPod`, which removes exactly what the
 * annotation says was injected; documents with nothing to undo come out byte for byte. Same
 * all-or-nothing rule as inject: an error throws with its document and line.
 */
import type { LoadedConfig } from '../config/types.js';
import type { SourceLocation } from '../errors.js';
import { uninjectPod } from '../inject/index.js';
import { podTemplates, readManifest, withPodTemplate, type ManifestDocument } from '../manifest-io/index.js';
import type { JsonValue } from '../util/json.js';
import { describeWorkload, locatedError, mapDocuments, podInput, subjectOf, templateFromPod, templateLocation, type ObjectResult } from './pod-templates.js';
import type { ManualOptions, ManualOutput } from './types.js';

export function uninjectManifest(input: string | Uint8Array, source: string, config: LoadedConfig, options: ManualOptions = {}): ManualOutput {
  return uninjectDocuments(readManifest(input, source), config, options);
}

export function uninjectDocuments(docs: readonly ManifestDocument[], config: LoadedConfig, options: ManualOptions = {}): ManualOutput {
  return mapDocuments(docs, (value, index, where, doc) => uninjectObject(value, index, where, config, options, doc));
}

export function uninjectObject(
  value: JsonValue,
  index: number,
  where: SourceLocation,
  config: LoadedConfig,
  options: ManualOptions,
  doc?: ManifestDocument,
): ObjectResult {
  const result: ObjectResult = { value, notes: [], changed: 0, unchanged: 0 };
  for (const ref of podTemplates(value, where)) {
    const subject = subjectOf(ref, index, options);
    let undone;
    try {
      undone = uninjectPod(podInput(value, ref), config);
    } catch (err) {
      throw locatedError(err, templateLocation(where, doc, ref.path), describeWorkload(subject));
    }
    if (undone.kind === 'not-injected') {
      result.unchanged++;
      result.notes.push({ ...subject, severity: 'info', type: 'not-injected', message: undone.reason });
      continue;
    }
    result.changed++;
    result.value = withPodTemplate(result.value, ref.path, templateFromPod(ref.template, undone.pod as Record<string, JsonValue>));
  }
  return result;
}
