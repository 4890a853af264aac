/**
 * @module e2e/lib/node
 * What the scenarios whose pods run share: whether the cluster has a node (a kubelet reports on
 * e2e-node), the test images and our own image (which `npm run e2e` builds and imports), waiting
 * for pods to run, and HTTP from this machine to pods and Services.
 */
import { request } from 'node:http';
import { readState } from '../cluster/cluster.js';
import { ctr } from '../cluster/node.js';
import { NODE } from '../cluster/node-config.js';
import { imageReference } from '../../scripts/release/image-spec.js';
import { getJson, kubectl, pods, waitFor, type Obj } from './kube.js';

export const IMAGES = {
  app: NODE.images['app.tar'],
  proxy: NODE.images['proxy.tar'],
  nginx: NODE.images['nginx.tar'],
  busybox: NODE.images['busybox.tar'],
} as const;

/** The app the scenarios' sidecars join: `args` for e2e.local/app:1 (default: serve on :8080). */
export const CHECKS_SIDECAR = ['serve', ':8080', '--check-at-start', 'http://127.0.0.1:15021/healthz/ready'];

/** A Deployment of the test app as YAML text (what a user writes, before any injection). */
export function appDeployment(name: string, namespace: string, o: { replicas?: number; args?: string[]; annotations?: Record<string, string> } = {}): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ${namespace}
spec:
  replicas: ${o.replicas ?? 1}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
${o.annotations ? `      annotations: ${JSON.stringify(o.annotations)}\n` : ''}    spec:
      terminationGracePeriodSeconds: 2
      containers:
      - name: ${name}
        image: ${IMAGES.app}
${o.args ? `        args: ${JSON.stringify(o.args)}\n` : ''}`;
}

/** Why a scenario that needs running pods cannot run here, or false. */
export async function noNodeReason(): Promise<string | false> {
  const r = await kubectl(['get', 'node', NODE.name, '-o', 'jsonpath={.status.nodeInfo.kubeletVersion}'], { allowFail: true });
  return r.code === 0 && r.stdout.trim() !== '' ? false : `no kubelet runs (a control plane only: npm run e2e -- --no-node)`;
}

/** Our image as `npm run image` tags it (imported into the node by `npm run e2e`). */
export function ourImage(): { repository: string; tag: string; reference: string } {
  const { repository, tag, reference } = imageReference();
  return { repository, tag, reference: process.env.SI_E2E_IMAGE || reference };
}

/** `ctr -n k8s.io` against the node's containerd (tag an image, kill a container). */
export function nodeCtr(args: string[]): string {
  const node = readState()?.node;
  if (!node) throw new Error('the cluster has no node (state.json)');
  return ctr(node, args);
}

/** Gives an imported image a second name, as a registry push of a new tag would. */
export function tagImage(source: string, target: string): void {
  nodeCtr(['images', 'tag', '--force', source, target]);
}

const ready = (pod: Obj): boolean =>
  pod.status?.phase === 'Running' &&
  !pod.metadata.deletionTimestamp &&
  (pod.status?.conditions ?? []).some((c: Obj) => c.type === 'Ready' && c.status === 'True');

/** Waits until `count` pods match and all are Running and Ready (and none is terminating). */
export async function waitRunning(namespace: string, selector: string, count: number, timeoutMs = 120_000): Promise<Obj[]> {
  return waitFor(
    `${count} ready pod(s) ${selector} in ${namespace}`,
    async () => {
      const list = (await pods(namespace, selector)).filter((p) => !p.metadata.deletionTimestamp);
      return list.length === count && list.every(ready) ? list : undefined;
    },
    timeoutMs,
    500,
  );
}

/** The lines `kubectl get pods` prints, as a user sees them. */
export async function getPodsTable(namespace: string): Promise<string> {
  return (await kubectl(['-n', namespace, 'get', 'pods'])).stdout;
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** GET http://HOST:PORT/PATH from this machine (to a pod or a ClusterIP, over the bridge). */
export function httpGet(url: string, timeoutMs = 5000): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { timeout: timeoutMs, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url}: no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** A pod's IP and its containers' start times, from the apiserver. */
export async function podStatus(namespace: string, name: string): Promise<{ ip: string; started: Record<string, number>; pod: Obj }> {
  const pod = await getJson(['pod', name, '-n', namespace]);
  const started: Record<string, number> = {};
  for (const s of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])] as Obj[]) {
    const at = s.state?.running?.startedAt ?? s.state?.terminated?.startedAt;
    if (at) started[s.name as string] = Date.parse(at as string);
  }
  return { ip: pod.status?.podIP as string, started, pod };
}
