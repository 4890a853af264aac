/**
 * @module bench/lib/cluster-setup
 * What the pod-create benchmark stands on: the project's own control plane (`npm run cluster`,
 * a private one under SI_E2E_STATE, started here when none runs and stopped again at the end),
 * the Go builds it compares against (e2e/build/istio.sh, e2e/build/floor.sh), one namespace per
 * mode and one MutatingWebhookConfiguration per webhook, in URL mode on 127.0.0.1.
 *
 * Every configuration is the one its product ships: ours from `manifests --webhook-url`, Istio's
 * from the `istio-sidecar-injector` MutatingWebhookConfiguration of `istioctl manifest generate`
 * (clientConfig turned into the URL). Two changes keep modes apart and countable: each namespace
 * selector also requires the namespace label `si-bench=<mode>`, and each webhook's name gets the
 * mode as a prefix, because the apiserver's metrics name webhooks, not configurations.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { healthy, readState, up, down, type ClusterState } from '../../e2e/cluster/cluster.js';
import { cacheRoot, repoRoot } from '../../e2e/cluster/paths.js';
import { apply, kubectl, type Obj } from '../../e2e/lib/kube.js';

export const MODE_LABEL = 'si-bench';

/** The admin identity from the cluster's kubeconfig (CA, client certificate and key, PEM). */
export interface ApiTrust {
  host: string;
  port: number;
  ca: string;
  cert: string;
  key: string;
}

export interface Cluster {
  state: ClusterState;
  trust: ApiTrust;
  /** Started by this run (and so stopped at its end unless kept). */
  startedHere: boolean;
}

/**
 * A control plane for the run: SI_E2E_STATE's (default: a `cluster-bench` state directory of
 * its own, so the run never touches another's cluster), reused when healthy, else started.
 * KUBECONFIG and PATH (kubectl) are set for the helpers of e2e/lib.
 */
export async function ensureCluster(log: (line: string) => void): Promise<Cluster> {
  process.env.SI_E2E_STATE ??= join(cacheRoot(), 'cluster-bench');
  const before = readState();
  const running = before !== undefined && (await healthy(before));
  const state = await up({ log });
  process.env.KUBECONFIG = state.kubeconfig;
  process.env.PATH = `${state.binDir}:${process.env.PATH ?? ''}`;
  return { state, trust: trustOf(state.kubeconfig), startedHere: !running };
}

export async function stopCluster(cluster: Cluster, keep: boolean, log: (line: string) => void): Promise<void> {
  if (cluster.startedHere && !keep) await down({ log });
}

function trustOf(kubeconfig: string): ApiTrust {
  const k = parse(readFileSync(kubeconfig, 'utf8')) as Obj;
  const b64 = (s: string): string => Buffer.from(s, 'base64').toString('utf8');
  const url = new URL(k.clusters[0].cluster.server as string);
  return {
    host: url.hostname,
    port: Number(url.port),
    ca: b64(k.clusters[0].cluster['certificate-authority-data']),
    cert: b64(k.users[0].user['client-certificate-data']),
    key: b64(k.users[0].user['client-key-data']),
  };
}

/** Run a build script of e2e/build; its last output line is what it built. */
export function buildScript(name: 'istio.sh' | 'floor.sh'): string {
  const script = join(repoRoot, 'e2e', 'build', name);
  const r = spawnSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`${script} failed (exit ${r.status}); see its messages above`);
  const last = r.stdout.trim().split('\n').pop() ?? '';
  if (!existsSync(last)) throw new Error(`${script} printed ${JSON.stringify(last)}, which does not exist`);
  return last;
}

/** `selector` AND the namespace label si-bench=mode. */
function requireMode(selector: Obj | undefined, mode: string): Obj {
  const s = { ...(selector ?? {}) };
  s.matchExpressions = [...(s.matchExpressions ?? []), { key: MODE_LABEL, operator: 'In', values: [mode] }];
  return s;
}

/** A configuration narrowed to one mode: its namespaces only, webhook names prefixed by the mode. */
export function forMode(config: Obj, mode: string, url?: string, caBundle?: string): Obj {
  const out = structuredClone(config) as Obj;
  out.metadata = { name: `si-bench-${mode}`, labels: { [MODE_LABEL]: 'true' } };
  for (const w of out.webhooks as Obj[]) {
    w.name = `${mode}.${w.name}`;
    w.namespaceSelector = requireMode(w.namespaceSelector, mode);
    if (url !== undefined) w.clientConfig = { url, caBundle };
  }
  return out;
}

/** The MutatingWebhookConfiguration in a multi-document YAML text (ours from manifests, Istio's from manifest generate). */
export function webhookConfigIn(yaml: string, name?: string): Obj {
  for (const d of parseAllDocuments(yaml)) {
    const o = d.toJSON() as Obj | null;
    if (o?.kind === 'MutatingWebhookConfiguration' && (name === undefined || o.metadata?.name === name)) return o;
  }
  throw new Error(`no MutatingWebhookConfiguration${name ? ` named ${name}` : ''} in the manifest`);
}

/** A webhook on Go's standard library that the apiserver calls for every pod create of its mode. */
export function floorConfig(mode: string, url: string, caBundle: string): Obj {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: `si-bench-${mode}`, labels: { [MODE_LABEL]: 'true' } },
    webhooks: [
      {
        name: `${mode}.floor.si-bench.local`,
        clientConfig: { url, caBundle },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: 'Namespaced' }],
        failurePolicy: 'Fail',
        sideEffects: 'None',
        timeoutSeconds: 10,
        admissionReviewVersions: ['v1'],
        reinvocationPolicy: 'Never',
        namespaceSelector: requireMode(undefined, mode),
      },
    ],
  };
}

/** The webhook names of a configuration (the apiserver's metric label). */
export function webhookNames(config: Obj): string[] {
  return (config.webhooks as Obj[]).map((w) => w.name as string);
}

export async function applyConfigs(configs: Obj[]): Promise<void> {
  await apply(configs.map((c) => JSON.stringify(c)).join('\n'));
}

/** One namespace per mode, labelled as every injector's selector wants it, plus its mode. */
export async function createModeNamespaces(modes: readonly string[]): Promise<void> {
  const docs = modes.map((m) => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespaceOf(m), labels: { [MODE_LABEL]: m, 'istio-injection': 'enabled' } },
  }));
  await apply(docs.map((d) => JSON.stringify(d)).join('\n'));
  for (const m of modes) {
    for (let i = 0; i < 100; i++) {
      if ((await kubectl(['-n', namespaceOf(m), 'get', 'serviceaccount', 'default'], { allowFail: true })).code === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

export function namespaceOf(mode: string): string {
  return `si-bench-${mode}`;
}

/** Remove the run's pods (between rates: the store stays small), or everything it made. */
export async function deletePods(modes: readonly string[]): Promise<void> {
  for (const m of modes)
    await kubectl(['-n', namespaceOf(m), 'delete', 'pods', '--all', '--wait=true', '--timeout=120s'], { allowFail: true, timeoutMs: 180_000 });
}

export async function removeAll(modes: readonly string[]): Promise<void> {
  await kubectl(['delete', 'mutatingwebhookconfiguration', '-l', `${MODE_LABEL}=true`, '--ignore-not-found'], { allowFail: true });
  await kubectl(['delete', 'namespace', ...modes.map(namespaceOf), '--ignore-not-found', '--wait=false'], { allowFail: true });
}
