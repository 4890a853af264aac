/**
 * @module e2e/lib/in-pod
 * Run `sidecar-injector serve` as it runs in a pod, so that what needs in-cluster credentials
 * (the caBundle reconciler of `serve --webhook-config`) works against the e2e apiserver under the
 * real RBAC: the Namespace, ServiceAccount, ClusterRole and ClusterRoleBinding exactly as
 * `manifests --name N --namespace N` writes them, a token of that ServiceAccount, and a private
 * mount namespace where the token, the apiserver CA and the namespace sit at the
 * service-account path, with the KUBERNETES_SERVICE_* variables. Needs root (unshare -m).
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { apply, cli, kubectl, waitFor, type Obj } from './kube.js';

export const SA_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
export const isRoot = process.getuid?.() === 0;

export interface InPod {
  /** The mounted service-account directory (token, ca.crt, namespace). */
  saDir: string;
  /** For startWebhook: the in-cluster variables and the mount-namespace wrapper. */
  env: NodeJS.ProcessEnv;
  wrap: (command: string, args: string[]) => [string, string[]];
  /** Delete the cluster-scoped RBAC, the namespace and the token directory. */
  dispose(): Promise<void>;
}

export async function inPod(name: string): Promise<InPod> {
  const objects = parseAllDocuments((await cli(['manifests', '--name', name, '--namespace', name])).stdout).map((d) => d.toJS() as Obj);
  const wanted = objects.filter((o) => ['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding'].includes(o.kind));
  assert.equal(wanted.length, 4, 'manifests writes the reconciler\'s Namespace, ServiceAccount, ClusterRole and ClusterRoleBinding');
  await kubectl(['delete', 'namespace', name, '--ignore-not-found', '--wait=true', '--timeout=120s']);
  await apply(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: wanted }));
  const clusterObjects = wanted.filter((o) => o.kind.startsWith('Cluster'));
  const sa = wanted.find((o) => o.kind === 'ServiceAccount')!;
  await waitFor('the ServiceAccount', async () => (await kubectl(['-n', name, 'get', 'serviceaccount', sa.metadata.name], { allowFail: true })).code === 0);
  const token = (await kubectl(['-n', name, 'create', 'token', sa.metadata.name, '--duration=1h'])).stdout.trim();
  const kubeconfig = await readFile(process.env.KUBECONFIG!, 'utf8');
  const caData = /certificate-authority-data: (\S+)/.exec(kubeconfig)![1]!;
  const server = new URL(/server: (\S+)/.exec(kubeconfig)![1]!);
  const saDir = await mkdtemp(join(tmpdir(), 'si-e2e-sa-'));
  await writeFile(join(saDir, 'token'), token);
  await writeFile(join(saDir, 'ca.crt'), Buffer.from(caData, 'base64'));
  await writeFile(join(saDir, 'namespace'), name);
  await mkdir(SA_PATH, { recursive: true });
  return {
    saDir,
    env: { KUBERNETES_SERVICE_HOST: server.hostname, KUBERNETES_SERVICE_PORT: server.port },
    // As kubelet mounts it: the service-account volume at its fixed path, for this process only.
    wrap: (command, args) => ['unshare', ['-m', '--propagation', 'private', 'sh', '-c', `mount --bind "$0" ${SA_PATH} && exec "$@"`, saDir, command, ...args]],
    async dispose() {
      for (const o of clusterObjects) await kubectl(['delete', o.kind.toLowerCase(), o.metadata.name, '--ignore-not-found'], { allowFail: true });
      await kubectl(['delete', 'namespace', name, '--ignore-not-found', '--wait=false'], { allowFail: true });
      await rm(saDir, { recursive: true, force: true });
    },
  };
}
