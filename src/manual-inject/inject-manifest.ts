/**
 * @module manual-inject/inject-manifest
 * `inject -f` at the manifest level (istioctl kube-inject): every pod template of every workload
 * document goes through the same core as the webhook, in manual mode (policy forced enabled,
 * selectors ignored; hostNetwork and ignored namespaces still skip). A document with an injected
 * template is edited in place where it changed (manifest-io/write.ts: comments kept, unlike
 * istioctl); every other document comes out byte for byte. All or nothing: the first error is thrown with its
 * document and line, and no output exists.
 */
import { injectPod } from '../inject/index.js';
import { ownMetadataLints } from './explain-lints.js';
import type { InjectionContext } from '../inject/types.js';
import type { LoadedConfig } from '../config/types.js';
import { podTemplates, readManifest, withPodTemplate, type ManifestDocument } from '../manifest-io/index.js';
import { ConfigError, type SourceLocation } from '../errors.js';
import { injectionProblems } from '../check/check.js';
import type { JsonValue } from '../util/json.js';
import {
  describeWorkload,
  locatedError,
  mapDocuments,
  ownerFor,
  podInput,
  subjectOf,
  templateFromPod,
  templateLocation,
  type ObjectResult,
} from './pod-templates.js';
import type { ManualOptions, ManualOutput } from './types.js';

/** Inject every pod template in a manifest stream. Throws InjectorError (with location) on bad input or a failed injection. */
export function injectManifest(input: string | Uint8Array, source: string, config: LoadedConfig, options: ManualOptions = {}): ManualOutput {
  return injectDocuments(readManifest(input, source), config, options);
}

export function injectDocuments(docs: readonly ManifestDocument[], config: LoadedConfig, options: ManualOptions = {}): ManualOutput {
  return mapDocuments(docs, (value, index, where, doc) => injectObject(value, index, where, config, options, doc));
}

export type { ObjectResult };

/**
 * Inject the pod templates of one parsed object (a document, or a KRM item). `where` locates
 * errors; `doc`, when given, lets an error point at the template's own line.
 */
export function injectObject(
  value: JsonValue,
  index: number,
  where: SourceLocation,
  config: LoadedConfig,
  options: ManualOptions,
  doc?: ManifestDocument,
): ObjectResult {
  const refs = podTemplates(value, where);
  const result: ObjectResult = { value, notes: [], changed: 0, unchanged: 0 };
  for (const ref of refs) {
    const subject = subjectOf(ref, index, options);
    const ctx: InjectionContext = { namespace: subject.namespace, mode: 'manual' };
    const owner = ownerFor(ref);
    if (owner !== undefined) ctx.owner = owner;
    let injected;
    try {
      injected = injectPod(podInput(value, ref), ctx, config);
    } catch (err) {
      throw locatedError(err, templateLocation(where, doc, ref.path), describeWorkload(subject));
    }
    const warnings = new Set([...injected.decision.warnings, ...injected.warnings]);
    for (const message of warnings) result.notes.push({ ...subject, severity: 'warning', type: 'warning', message });
    // What explain warns about the manifest itself (the opt-in on the Deployment's own metadata), said here too.
    for (const lint of ownMetadataLints(ref, config))
      result.notes.push({ ...subject, severity: 'warning', type: 'warning', message: where.line === undefined ? lint : `line ${where.line}: ${lint}` });
    if (injected.kind === 'skipped') {
      result.unchanged++;
      result.notes.push({ ...subject, severity: 'info', type: 'skipped', message: injected.decision.message, reason: injected.decision.reason });
      continue;
    }
    if (injected.patch.length === 0) {
      // Already injected by this very config: keep the document's text (and any comments) as is.
      result.unchanged++;
      continue;
    }
    if (options.validate === true) {
      const problems = injectionProblems(podInput(value, ref), injected);
      if (problems.length > 0) {
        const p = problems[0];
        throw new ConfigError(
          'SI_CONFIG_INVALID',
          `${describeWorkload(subject)}: the injected pod would be refused by the API server: ${p.field}: ${p.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}; the config's template made it (sidecar-injector config check -c CONFIG -f FILE lists every finding)`,
          {
            location: templateLocation(where, doc, ref.path),
          },
        );
      }
    }
    result.changed++;
    result.value = withPodTemplate(result.value, ref.path, templateFromPod(ref.template, injected.pod));
  }
  return result;
}
