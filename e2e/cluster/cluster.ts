/**
 * @module e2e/cluster/cluster
 * A real Kubernetes cluster on this machine, without Docker: etcd, kube-apiserver (RBAC,
 * service-account keys, client-certificate authentication) and kube-controller-manager, from
 * the binaries `e2e/build/build.sh` builds, and by default one node whose pods run (node.ts:
 * containerd, kubelet, kube-scheduler, kube-proxy). Without the node (`node: false`) pods stay
 * Pending, which is enough for admission: the controllers create ReplicaSets, Pods and Jobs as
 * in any cluster, and the control plane listens on loopback only.
 *
 * With a node, the apiserver listens on the node's bridge address instead (this machine only:
 * host.ts's guard), so that pods reach it through the `kubernetes` Service.
 *
 * `up` is idempotent (a healthy cluster of the same kind is reused; a half-started one is torn
 * down with the failing component's log tail); `down` stops what `up` started, restores the host
 * state the node changed and removes the cluster's state.
 */
import { request } from 'node:https';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from '../../test/support/server-process.js';
import { join } from 'node:path';
import { ensureBinaries, stateDir } from './paths.js';
import { createPki, type Pki } from './pki.js';
import { kubeconfigYaml } from './kubeconfig.js';
import { isRunning, logTail, startDaemon, stopDaemon, type Daemon } from './process.js';
import { claimNode, ensureNodeBuild, prepareNodeHost, releaseNode, RUNC, startNode, stopNode, type NodeState } from './node.js';
import { NODE } from './node-config.js';

export interface ClusterState {
  version: 1;
  binDir: string;
  kubeconfig: string;
  server: string;
  ports: { etcd: number; etcdPeer: number; apiserver: number; controllerManager: number };
  daemons: Daemon[];
  /** Extra apiserver arguments this cluster was started with (e.g. an admission config). */
  apiserverExtraArgs: string[];
  /** The client certificate the apiserver presents to webhooks (ca.crt, client.crt, client.key). */
  webhookClientDir: string;
  /** Sizing for a large cluster (`UpOptions.sizing`), when it was started with one. */
  sizing?: Sizing;
  /** The node, when the cluster has one. */
  node?: NodeState;
}

/** Extra flags for a large or instrumented control plane (the scale bench). */
export interface Sizing {
  etcdArgs?: string[];
  apiserverArgs?: string[];
  /** kube-controller-manager's `--controllers` (default: all but the node and volume ones). */
  controllers?: string;
}

export interface UpOptions {
  /**
   * `--admission-control-config-file` for the apiserver. By default the cluster's own, which
   * presents the client certificate in `webhookClientDir` to every webhook.
   */
  admissionConfigFile?: string;
  sizing?: Sizing;
  /** Start a node whose pods run (default: a control plane only). */
  node?: boolean;
  log?: (line: string) => void;
}

const statePath = (): string => join(stateDir(), 'state.json');

export function readState(): ClusterState | undefined {
  if (!existsSync(statePath())) return undefined;
  try {
    return JSON.parse(readFileSync(statePath(), 'utf8')) as ClusterState;
  } catch {
    return undefined;
  }
}

/**
 * One line for `eval`: the kubeconfig, and the bin directory (kubectl and helm of the cluster's
 * version) first on PATH, since the machine's own kubectl may be outside the version skew.
 */
export function exportLine(state: ClusterState): string {
  return `export KUBECONFIG=${state.kubeconfig} PATH=${state.binDir}:$PATH`;
}

/** GET a path of the apiserver as the admin; resolves with the status code and body. */
export function apiGet(state: ClusterState, pki: Pki, path: string, timeoutMs = 5000): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = request(
      `${state.server}${path}`,
      {
        ca: readFileSync(pki.caCert),
        cert: readFileSync(pki.admin.cert),
        key: readFileSync(pki.admin.key),
        timeout: timeoutMs,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => resolve({ status: 0, body: String(err) }));
    req.end();
  });
}

async function waitUntil(what: string, timeoutMs: number, daemons: Daemon[], check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const dead = daemons.find((d) => !isRunning(d));
    if (dead) throw new ComponentError(dead, `${dead.name} exited while waiting for ${what}`);
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
}

class ComponentError extends Error {
  constructor(
    readonly daemon: Daemon,
    message: string,
  ) {
    super(message);
  }
}

/** Is the recorded cluster up and answering? */
export async function healthy(state: ClusterState): Promise<boolean> {
  if (!state.daemons.every(isRunning) || (state.node && !state.node.daemons.every(isRunning))) return false;
  const res = await apiGet(state, createPki(join(stateDir(), 'pki')), '/readyz');
  return res.status === 200;
}

export async function up(options: UpOptions = {}): Promise<ClusterState> {
  const log = options.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const custom = options.admissionConfigFile ? [`--admission-control-config-file=${options.admissionConfigFile}`] : [];
  const existing = readState();
  const withNode = options.node ?? false;
  if (existing) {
    // A cluster from before the webhook client certificate existed lacks what the scenarios need.
    const sameArgs =
      (options.admissionConfigFile === undefined
        ? existing.webhookClientDir !== undefined
        : JSON.stringify(existing.apiserverExtraArgs ?? []) === JSON.stringify(custom)) &&
      JSON.stringify(existing.sizing ?? {}) === JSON.stringify(options.sizing ?? {});
    const sameKind = (existing.node !== undefined) === withNode;
    if (sameArgs && sameKind && (await healthy(existing))) {
      log(`cluster: reusing the running ${withNode ? 'cluster' : 'control plane'} at ${existing.server}`);
      return existing;
    }
    log(
      !sameArgs
        ? 'cluster: the running control plane has other apiserver arguments; restarting it'
        : !sameKind
          ? `cluster: the running cluster ${withNode ? 'has no node' : 'has a node'}; restarting it`
          : 'cluster: the recorded cluster is not healthy; tearing it down',
    );
    await down({ log });
  }
  const dir = stateDir();
  if (withNode) claimNode(dir, log);
  const binDir = ensureBinaries();
  const nodeBuild = withNode ? ensureNodeBuild() : undefined;
  mkdirSync(dir, { recursive: true });
  const pki = createPki(join(dir, 'pki'));
  const extra = options.admissionConfigFile ? custom : [`--admission-control-config-file=${pki.admissionConfig}`];
  const ports = { etcd: await freePort(), etcdPeer: await freePort(), apiserver: await freePort(), controllerManager: await freePort() };
  // With a node the apiserver listens on the bridge (pods reach it as the `kubernetes` Service).
  const address = withNode ? NODE.gateway : '127.0.0.1';
  const server = `https://${address}:${ports.apiserver}`;
  const kubeconfig = join(dir, 'admin.kubeconfig');
  writeFileSync(kubeconfig, kubeconfigYaml(server, pki.caCert, pki.admin.cert, pki.admin.key, 'e2e-admin'), { mode: 0o600 });
  const kcmKubeconfig = join(dir, 'kube-controller-manager.kubeconfig');
  writeFileSync(kcmKubeconfig, kubeconfigYaml(server, pki.caCert, pki.controllerManager.cert, pki.controllerManager.key, 'kube-controller-manager'), {
    mode: 0o600,
  });
  const sizing = options.sizing ?? {};
  const state: ClusterState = {
    version: 1,
    binDir,
    kubeconfig,
    server,
    ports,
    daemons: [],
    apiserverExtraArgs: extra,
    webhookClientDir: pki.webhookClientDir,
    ...(options.sizing ? { sizing } : {}),
  };
  if (nodeBuild) {
    state.node = {
      dir: join(dir, 'node'),
      bin: nodeBuild.bin,
      cniBin: nodeBuild.cniBin,
      runc: RUNC,
      imagesDir: nodeBuild.imagesDir,
      ports: { scheduler: 0, proxyMetrics: 0, proxyHealthz: 0 },
      daemons: [],
    };
  }
  const save = (): void => writeFileSync(statePath(), `${JSON.stringify(state, null, 2)}\n`);
  try {
    if (state.node) {
      save();
      prepareNodeHost(state.node, ports.apiserver);
    }
    const etcdUrl = `http://127.0.0.1:${ports.etcd}`;
    const peerUrl = `http://127.0.0.1:${ports.etcdPeer}`;
    state.daemons.push(
      startDaemon(
        'etcd',
        join(binDir, 'etcd'),
        [
          `--data-dir=${join(dir, 'etcd')}`,
          `--listen-client-urls=${etcdUrl}`,
          `--advertise-client-urls=${etcdUrl}`,
          `--listen-peer-urls=${peerUrl}`,
          `--initial-advertise-peer-urls=${peerUrl}`,
          `--initial-cluster=default=${peerUrl}`,
          '--unsafe-no-fsync',
          '--log-level=warn',
          ...(sizing.etcdArgs ?? []),
        ],
        join(dir, 'etcd.log'),
      ),
    );
    save();
    log(`cluster: etcd on 127.0.0.1:${ports.etcd}`);
    state.daemons.push(
      startDaemon(
        'kube-apiserver',
        join(binDir, 'kube-apiserver'),
        [
          `--etcd-servers=${etcdUrl}`,
          `--bind-address=${address}`,
          `--advertise-address=${address}`,
          `--secure-port=${ports.apiserver}`,
          `--tls-cert-file=${pki.serverCert}`,
          `--tls-private-key-file=${pki.serverKey}`,
          `--client-ca-file=${pki.caCert}`,
          `--service-account-issuer=${server}`,
          `--service-account-key-file=${pki.saPub}`,
          `--service-account-signing-key-file=${pki.saKey}`,
          '--api-audiences=https://kubernetes.default.svc',
          '--service-cluster-ip-range=10.0.0.0/24',
          '--authorization-mode=Node,RBAC',
          '--allow-privileged=true',
          // With a node, the `kubernetes` Service's endpoint is the apiserver's address on the bridge.
          `--endpoint-reconciler-type=${withNode ? 'lease' : 'none'}`,
          '--profiling=false',
          `--cert-dir=${join(dir, 'apiserver-certs')}`,
          // logs/exec: reach the kubelet at its InternalIP, not by its name (a DNS query off the machine).
          '--kubelet-preferred-address-types=InternalIP',
          `--kubelet-client-certificate=${pki.admin.cert}`,
          `--kubelet-client-key=${pki.admin.key}`,
          ...extra,
          ...(sizing.apiserverArgs ?? []),
        ],
        join(dir, 'kube-apiserver.log'),
      ),
    );
    save();
    log(`cluster: kube-apiserver on ${server}; waiting for /readyz`);
    await waitUntil('the apiserver /readyz', 120_000, state.daemons, async () => (await apiGet(state, pki, '/readyz')).status === 200);
    state.daemons.push(
      startDaemon(
        'kube-controller-manager',
        join(binDir, 'kube-controller-manager'),
        [
          `--kubeconfig=${kcmKubeconfig}`,
          `--authentication-kubeconfig=${kcmKubeconfig}`,
          `--authorization-kubeconfig=${kcmKubeconfig}`,
          '--leader-elect=false',
          '--bind-address=127.0.0.1',
          `--secure-port=${ports.controllerManager}`,
          `--service-account-private-key-file=${pki.saKey}`,
          `--root-ca-file=${pki.caCert}`,
          '--use-service-account-credentials=true',
          `--cert-dir=${join(dir, 'kcm-certs')}`,
          `--controllers=${sizing.controllers ?? '*,-nodeipam,-nodelifecycle,-route,-cloud-node-lifecycle,-service-lb-controller,-persistentvolume-binder,-attachdetach,-persistentvolume-expander'}`,
        ],
        join(dir, 'kube-controller-manager.log'),
      ),
    );
    save();
    log('cluster: kube-controller-manager started; waiting for the default ServiceAccount');
    await waitUntil(
      'the default ServiceAccount',
      120_000,
      state.daemons,
      async () => (await apiGet(state, pki, '/api/v1/namespaces/default/serviceaccounts/default')).status === 200,
    );
    if (state.node) {
      await startNode(state.node, {
        server,
        kubeconfig,
        pkiDir: pki.dir,
        caCert: pki.caCert,
        kubectl: join(binDir, 'kubectl'),
        log,
        save,
      });
    }
    return state;
  } catch (err) {
    const nodeDaemon = (err as { daemon?: Daemon }).daemon ?? state.node?.daemons[state.node.daemons.length - 1];
    const failed = err instanceof ComponentError ? err.daemon : (nodeDaemon ?? state.daemons[state.daemons.length - 1]);
    if (failed) log(`cluster: ${failed.name} log (last lines of ${failed.log}):\n${logTail(failed.log)}`);
    await down({ log, keepLogs: true });
    throw err;
  }
}

export async function down(options: { log?: (line: string) => void; keepLogs?: boolean } = {}): Promise<void> {
  const log = options.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const state = readState();
  const dir = stateDir();
  if (state?.node) {
    await stopNode(state.node, dir);
    log('cluster: node stopped; host state restored');
  } else if (releaseNode(dir)) log('cluster: undid the host state of a node that never started');
  if (state) {
    // Reverse order: controllers first, etcd last, so nothing logs about a vanished store.
    for (const d of [...state.daemons].reverse()) await stopDaemon(d);
    log('cluster: stopped');
  }
  if (!existsSync(dir)) return;
  if (options.keepLogs) {
    for (const f of ['state.json', 'etcd', 'pki', 'admin.kubeconfig', 'kube-controller-manager.kubeconfig', 'node/containerd', 'node/kubelet']) {
      rmSync(join(dir, f), { recursive: true, force: true });
    }
  } else {
    rmSync(dir, { recursive: true, force: true });
  }
}
