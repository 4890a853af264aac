/**
 * @module cli/restart-hint
 * `restart --stale` judges pods against `--config`, but a restarted pod is injected by the
 * webhook in the cluster, with the config it serves. When the two differ, restarting only makes
 * new pods that are stale again: say so before restarting, with what to do first. The served
 * config is read where the installed Deployment mounts it (the ConfigMap behind `serve --config`,
 * as `manifests` and the Helm chart write it) and compared by content hash, so a different
 * layout or key order of the same config is no difference.
 */
import type { LoadedConfig } from '../config/types.js';
import type { ClusterApi } from '../kube/cluster-api.js';
import { isPlainObject } from '../util/json.js';
import { installedWebhook, podSpec, serverContainer } from './version-webhook.js';

type Obj = Record<string, unknown>;

/** The ConfigMap `serve --config PATH` reads in the Deployment: the volume mounted at PATH (or above it). */
export function servedConfigMap(deployment: Obj): string | undefined {
  const container = serverContainer(deployment);
  const args = [...(Array.isArray(container?.command) ? container.command : []), ...(Array.isArray(container?.args) ? container.args : [])].map(String);
  let path: string | undefined;
  args.forEach((a, i) => {
    if (a === '--config' || a === '-c') path = args[i + 1];
    else if (a.startsWith('--config=')) path = a.slice('--config='.length);
  });
  if (path === undefined) return undefined;
  const at = path;
  const mounts = Array.isArray(container?.volumeMounts) ? container.volumeMounts.filter(isPlainObject) : [];
  const mount = mounts.find((m) => typeof m.mountPath === 'string' && (at === m.mountPath || at.startsWith(`${m.mountPath.replace(/\/$/, '')}/`)));
  const volumes = podSpec(deployment).volumes;
  const volume = Array.isArray(volumes) && mount !== undefined ? volumes.find((v) => isPlainObject(v) && v.name === mount.name) : undefined;
  return isPlainObject(volume) && isPlainObject(volume.configMap) && typeof volume.configMap.name === 'string' ? volume.configMap.name : undefined;
}

/**
 * A warning when the webhook serves another config than `local` (loaded as `revision`, if any);
 * undefined when they agree or when it cannot be told (URL mode, no Deployment, no ConfigMap, one that does not load).
 */
export async function servedConfigHint(
  api: ClusterApi,
  local: LoadedConfig,
  webhookConfig: string | undefined,
  revision?: string,
): Promise<string | undefined> {
  const deployment = (await installedWebhook(api, webhookConfig, []))?.deployment;
  if (deployment === undefined) return undefined;
  const meta = isPlainObject(deployment.metadata) ? deployment.metadata : {};
  const ns = typeof meta.namespace === 'string' ? meta.namespace : '';
  const name = servedConfigMap(deployment);
  if (name === undefined) return undefined;
  const cm = await api.find(`/api/v1/namespaces/${encodeURIComponent(ns)}/configmaps/${encodeURIComponent(name)}`);
  const data = isPlainObject(cm) && isPlainObject(cm.data) ? cm.data : undefined;
  if (data === undefined || typeof data.config !== 'string') return undefined;
  const { parseConfig } = await import('../profiles/index.js');
  let served: LoadedConfig;
  try {
    // Read as that revision's server reads it (serve --revision sets values.revision), or the hashes differ.
    served = parseConfig(
      data.config,
      typeof data.values === 'string' ? data.values : undefined,
      `ConfigMap ${ns}/${name}`,
      revision === undefined ? {} : { revision },
    );
  } catch {
    return undefined;
  }
  if (served.hash === local.hash) return undefined;
  const given = local.source.kind === 'builtin' ? 'the built-in config (no --config given)' : `the config given with --config (${local.source.path ?? 'text'})`;
  return (
    `the webhook (Deployment ${ns}/${String(meta.name)}) serves the config in ConfigMap ${ns}/${name}, not ${given}: ` +
    'pods restarted now get the served config and may still be stale. Update the served config first ' +
    `(sidecar-injector manifests -c CONFIG | kubectl apply -f -, or helm upgrade), or pass the served one with --config, then restart`
  );
}
