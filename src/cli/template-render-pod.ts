/**
 * @module cli/template-render-pod
 * `template render -f POD [--config CFG] [--template NAME] [--merged]`: a config's template
 * rendered for a real pod with exactly the data, stripping and checks injection uses (the
 * core's renderPodTemplates), so what a user debugs is what the webhook would render. Prints
 * the overlay (one YAML document per template), or with `--merged` the injected pod (a whole
 * Pod object, also for a workload's template).
 */
import { InjectorError, InputError } from '../errors.js';
import { injectPod } from '../inject/pipeline.js';
import { renderPodTemplates } from '../inject/pipeline.js';
import { podTemplates, readManifest } from '../manifest-io/index.js';
import { stringifyObject } from '../yaml/index.js';
import { ownerFor, podInput } from '../manual-inject/pod-templates.js';
import { isPlainObject, type JsonObject, type JsonValue } from '../util/json.js';
import { type CliIO } from './io.js';
import { readManifestSources } from './manifest-sources.js';
import { loadInjectorConfig } from './manual-io.js';
import type { RenderOptions } from './template-render-run.js';

export async function renderForPod(io: CliIO, templateFile: string | undefined, opts: RenderOptions): Promise<string> {
  if (templateFile !== undefined)
    throw new InjectorError('SI_USAGE', 'give either a template file or -f POD, not both (with -f the template comes from --config; pick one with --template)');
  const files = opts.filename ?? [];
  if (files.length > 1)
    throw new InjectorError('SI_USAGE', `-f is given ${files.length} times: template render -f renders one pod; give the one manifest that holds it`);
  const [{ name: file, bytes }] = await readManifestSources(io, files);
  const config = await loadInjectorConfig(io, opts.config, false, true);
  const docs = readManifest(bytes, file);
  let found: { root: JsonValue; ref: ReturnType<typeof podTemplates>[number] } | undefined;
  for (const d of docs) {
    if (d.value === null) continue;
    const refs = podTemplates(d.value, { file: file, document: d.index, line: d.line });
    if (refs.length > 0) {
      found = { root: d.value, ref: refs[0] };
      break;
    }
  }
  if (found === undefined)
    throw new InputError('SI_INPUT_OBJECT', `${file} holds no pod or pod template (kinds: Pod, Deployment, StatefulSet, DaemonSet, Job, CronJob, ...)`);
  const pod = podInput(found.root, found.ref);
  const owner = ownerFor(found.ref);
  const namespace = found.ref.owner.namespace ?? opts.namespace ?? 'default';
  const ctx = { namespace, mode: 'manual' as const, ...(owner !== undefined ? { owner } : {}) };
  if (opts.merged === true) {
    // Injection itself, with the template chosen the way a pod chooses it (the templates annotation).
    const target = opts.template === undefined ? pod : withTemplatesAnnotation(pod, config.injectionKeys.templates, opts.template);
    const r = injectPod(target, ctx, config);
    if (r.kind === 'skipped') io.stderr(`notice: not injected: ${r.decision.message}\n`);
    return stringifyObject(asPod(r.kind === 'skipped' ? pod : r.pod, namespace, owner?.name));
  }
  const overlays = renderPodTemplates(pod, ctx, config, opts.template === undefined ? undefined : [opts.template]);
  return overlays.map((o) => `# template: ${o.name}\n${stringifyObject(o.overlay)}`).join('---\n');
}

/**
 * A workload's pod template as the Pod it becomes: apiVersion, kind, a name (the template's own,
 * else the workload's) and the namespace first, so the output is a whole object that kubectl
 * can read; a bare Pod keeps what it has.
 */
function asPod(pod: JsonObject, namespace: string, ownerName: string | undefined): JsonObject {
  const { apiVersion, kind, metadata, ...rest } = pod;
  const meta = isPlainObject(metadata) ? metadata : {};
  const { name, namespace: ns, ...restMeta } = meta;
  return {
    apiVersion: apiVersion ?? 'v1',
    kind: kind ?? 'Pod',
    metadata: { name: name ?? ownerName ?? 'pod', namespace: ns ?? namespace, ...restMeta },
    ...rest,
  } as JsonObject;
}

function withTemplatesAnnotation(pod: JsonObject, key: string, name: string): JsonObject {
  const meta = isPlainObject(pod.metadata) ? pod.metadata : {};
  const annotations = isPlainObject(meta.annotations) ? meta.annotations : {};
  return { ...pod, metadata: { ...meta, annotations: { ...annotations, [key]: name } } } as JsonObject;
}
