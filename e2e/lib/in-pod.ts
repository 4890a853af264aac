/**
 * @module e2e/lib/in-pod
 * `sidecar-injector serve` run as it runs in a pod, on the control plane without a kubelet: a
 * ServiceAccount token (made by the apiserver, bound by the RBAC under test, never the admin),
 * the apiserver CA and the namespace mounted at the service-account path in a private mount
 * namespace (needs root), the KUBERNETES_SERVICE_* variables, and the downward-API POD_*
 * variables pointing at a Pod object created for it (it stays Pending), so Events have a pod.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { parseAllDocuments } from 'yaml';
import { apply, cli, cliPath, kubectl, waitFor, type Obj } from './kube.js';

const SA_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
export const isRoot = process.getuid?.() === 0;

export interface PodIdentity {
  /** Environment for serve: the in-cluster variables, and POD_* when a pod was made. */
  env: NodeJS.ProcessEnv;
  /** Wrap a command line so it sees the token at SA_PATH (private mount namespace). */
  wrap: (command: string, args: string[]) => [string, string[]];
  /** The service-account directory (token, ca.crt, namespace). */
  dir: string;
  remove(): Promise<void>;
}

/** A pod-shaped Pod (restricted PSS) that never runs: Events are recorded on it. */
function placeholderPod(name: string, serviceAccount: string): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { 'si-e2e': 'in-pod' } },
    spec: {
      serviceAccountName: serviceAccount,
      securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [{ name: 'serve', image: 'registry.example/none:1', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
    },
  };
}

/** Credentials of `namespace/serviceAccount` laid out as kubelet mounts them; with `pod`, a Pod to put Events on. */
export async function asServiceAccount(namespace: string, serviceAccount: string, pod?: string): Promise<PodIdentity> {
  const token = (await kubectl(['-n', namespace, 'create', 'token', serviceAccount, '--duration=1h'])).stdout.trim();
  const kubeconfig = await readFile(process.env.KUBECONFIG!, 'utf8');
  const caData = /certificate-authority-data: (\S+)/.exec(kubeconfig)![1]!;
  const server = new URL(/server: (\S+)/.exec(kubeconfig)![1]!);
  const dir = await mkdtemp(join(tmpdir(), 'si-e2e-sa-'));
  await writeFile(join(dir, 'token'), token);
  await writeFile(join(dir, 'ca.crt'), Buffer.from(caData, 'base64'));
  await writeFile(join(dir, 'namespace'), namespace);
  await mkdir(SA_PATH, { recursive: true });
  const env: NodeJS.ProcessEnv = { KUBERNETES_SERVICE_HOST: server.hostname, KUBERNETES_SERVICE_PORT: server.port };
  if (pod !== undefined) {
    await kubectl(['-n', namespace, 'delete', 'pod', pod, '--ignore-not-found', '--wait=false']);
    const created = JSON.parse(
      (await kubectl(['-n', namespace, 'create', '-o', 'json', '-f', '-'], { input: JSON.stringify(placeholderPod(pod, serviceAccount)) })).stdout,
    ) as Obj;
    Object.assign(env, { POD_NAME: pod, POD_NAMESPACE: namespace, POD_UID: created.metadata.uid as string });
  }
  return {
    env,
    dir,
    wrap: (command, args) => ['unshare', ['-m', '--propagation', 'private', 'sh', '-c', `mount --bind "$0" ${SA_PATH} && exec "$@"`, dir, command, ...args]],
    async remove() {
      if (pod !== undefined) await kubectl(['-n', namespace, 'delete', 'pod', pod, '--ignore-not-found', '--wait=false'], { allowFail: true });
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface InPod extends PodIdentity {
  /** Delete the cluster-scoped RBAC, the namespace and the token directory. */
  dispose(): Promise<void>;
}

/**
 * The caBundle reconciler's identity exactly as `manifests --name N --namespace N` writes it
 * (Namespace, ServiceAccount, ClusterRole, ClusterRoleBinding), applied fresh, with its token.
 */
export async function inPod(name: string): Promise<InPod> {
  const objects = parseAllDocuments((await cli(['manifests', '--name', name, '--namespace', name])).stdout).map((d) => d.toJS() as Obj);
  const wanted = objects.filter((o) => ['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding'].includes(o.kind));
  assert.equal(wanted.length, 4, "manifests writes the reconciler's Namespace, ServiceAccount, ClusterRole and ClusterRoleBinding");
  await kubectl(['delete', 'namespace', name, '--ignore-not-found', '--wait=true', '--timeout=120s']);
  await apply(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: wanted }));
  const sa = wanted.find((o) => o.kind === 'ServiceAccount')!;
  await waitFor('the ServiceAccount', async () => (await kubectl(['-n', name, 'get', 'serviceaccount', sa.metadata.name], { allowFail: true })).code === 0);
  const identity = await asServiceAccount(name, sa.metadata.name as string);
  return {
    ...identity,
    async dispose() {
      for (const o of wanted.filter((w) => w.kind.startsWith('Cluster')))
        await kubectl(['delete', o.kind.toLowerCase(), o.metadata.name, '--ignore-not-found'], { allowFail: true });
      await kubectl(['delete', 'namespace', name, '--ignore-not-found', '--wait=false'], { allowFail: true });
      await identity.remove();
    },
  };
}

export interface ServeProcess {
  readonly child: ChildProcess;
  /** Its output so far (log lines), for assertions and failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/** `serve ARGS` (our CLI as it ships), optionally wrapped; output kept, SIGTERM then SIGKILL on stop. */
export function spawnServe(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; wrap?: (command: string, args: string[]) => [string, string[]] } = {},
): ServeProcess {
  const line: [string, string[]] = [process.execPath, [cliPath(), 'serve', ...args]];
  const [command, argv] = options.wrap ? options.wrap(...line) : line;
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...(options.env ?? {}) } });
  let out = '';
  const keep = (chunk: Buffer): void => {
    out = (out + chunk.toString('utf8')).slice(-50_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return {
    child,
    output: () => out,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** `/readyz` of the plain monitoring listener: status and the JSON detail. */
export function readyz(port: number, host = '127.0.0.1'): Promise<{ status: number; body: Obj }> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path: '/readyz', timeout: 2000 }, (res) => {
      let text = '';
      res
        .setEncoding('utf8')
        .on('data', (c: string) => {
          text += c;
        })
        .on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Obj });
          } catch (err) {
            reject(err);
          }
        });
    });
    req.on('timeout', () => req.destroy(new Error('no answer from /readyz')));
    req.on('error', reject);
    req.end();
  });
}

/** Wait until serve's /readyz answers `ready`, or fail with its detail and output. */
export async function waitReady(serve: ServeProcess, monitoringPort: number, timeoutMs = 60_000, host = '127.0.0.1'): Promise<Obj> {
  let last: unknown;
  try {
    return await waitFor(
      `serve to be ready on :${monitoringPort}`,
      async () => {
        if (serve.child.exitCode !== null) throw new Error(`serve exited ${serve.child.exitCode}: ${serve.output()}`);
        const r = await readyz(monitoringPort, host).catch(() => undefined);
        last = r?.body;
        return r?.status === 200 ? r.body : undefined;
      },
      timeoutMs,
      200,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}\n/readyz: ${JSON.stringify(last)}\nserve: ${serve.output().slice(-4000)}`, { cause: err });
  }
}

/** Events on a pod, oldest first: [reason, message]. */
export async function podEvents(namespace: string, pod: string): Promise<Array<[string, string]>> {
  const list = JSON.parse((await kubectl(['-n', namespace, 'get', 'events', '--field-selector', `involvedObject.name=${pod}`, '-o', 'json'])).stdout) as Obj;
  return (list.items as Obj[]).map((e) => [e.reason as string, e.message as string]);
}

/** The certificate a server presents at host:port, verified against `caPem` for `servername` (as the apiserver checks it). */
export function servedFingerprint(host: string, port: number, servername: string, caPem: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, servername, ca: caPem, timeout: 5000 }, () => {
      const fp = socket.getPeerCertificate().fingerprint256;
      socket.destroy();
      resolve(fp);
    });
    socket.on('timeout', () => socket.destroy(new Error(`no TLS handshake with ${host}:${port}`)));
    socket.on('error', reject);
  });
}
