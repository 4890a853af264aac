/**
 * @module e2e/cluster/node
 * The node whose pods run: containerd (with Debian's runc), the bridge CNI plugin, the kubelet,
 * kube-scheduler and kube-proxy, from e2e/build/node.sh, with the test images of
 * e2e/build/images.sh imported. `startNode` runs after the control plane is up; `stopNode`
 * stops it in the order that leaves nothing behind (see host.ts for the host state) and is safe
 * on a half-started node.
 *
 * One node per machine: the bridge, the cgroup and kube-proxy's chains are global. The owner
 * (the cluster's state directory) is recorded in OWNER_FILE; `up` from another state directory
 * is refused while that node runs.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { freePort } from '../../test/support/server-process.js';
import { clientCert } from './pki.js';
import { foreignNodeState, nodeCgroupPids, restoreHost, setupHost, unmountUnder } from './host.js';
import {
  NODE,
  cniConflist,
  containerdConfig,
  containerdSocket,
  kubeProxyArgs,
  kubeletArgs,
  kubeletConfig,
  kubeletKubeconfig,
  nodeFile,
  registryHostsToml,
  schedulerArgs,
  type NodePaths,
} from './node-config.js';
import { isRunning, startDaemon, stopDaemon, type Daemon } from './process.js';
import { repoRoot } from './paths.js';

const OWNER_FILE = join(NODE.runDir, 'owner.json');
export const RUNC = '/usr/sbin/runc';

export interface NodeState extends NodePaths {
  imagesDir: string;
  ports: { scheduler: number; proxyMetrics: number; proxyHealthz: number };
  daemons: Daemon[];
}

function buildScript(script: string, what: string): string {
  const path = join(repoRoot, 'e2e/build', script);
  let out: string;
  try {
    out = execFileSync('bash', [path], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20 });
  } catch (err) {
    throw new Error(`building ${what} failed (${path}); see the messages above`, { cause: err });
  }
  return out.trim().split('\n').pop()!;
}

/** Builds (or finds in the cache) the node's binaries and the test images. */
export function ensureNodeBuild(): { bin: string; cniBin: string; imagesDir: string } {
  if (!existsSync(RUNC)) throw new Error(`${RUNC} is missing: install Debian's runc (scripts/install-image-tools.sh)`);
  const dir = buildScript('node.sh', "the node's binaries");
  const imagesDir = buildScript('images.sh', 'the test images');
  return { bin: join(dir, 'bin'), cniBin: join(dir, 'cni-bin'), imagesDir };
}

interface Owner {
  stateDir: string;
}
const readOwner = (): Owner | undefined => {
  try {
    return JSON.parse(readFileSync(OWNER_FILE, 'utf8')) as Owner;
  } catch {
    return undefined;
  }
};

/** Does the cluster in `stateDir` have node daemons alive? */
function nodeRunning(stateDir: string): boolean {
  try {
    const state = JSON.parse(readFileSync(join(stateDir, 'state.json'), 'utf8')) as { node?: { daemons: Daemon[] } };
    return (state.node?.daemons ?? []).some(isRunning);
  } catch {
    return false;
  }
}

/**
 * Undoes the host state of a node recorded for another state directory whose daemons no longer
 * run (a run that was killed before `down`), and drops its claim. `npm run e2e` calls it before
 * its host snapshot, so the leftovers of a killed run are not taken for the host's own state.
 */
export function undoStaleNode(stateDir: string, log: (l: string) => void): void {
  const owner = readOwner();
  if (!owner || owner.stateDir === stateDir || nodeRunning(owner.stateDir)) return;
  log(`cluster: the node recorded for ${owner.stateDir} no longer runs; undoing its host state`);
  // Its daemons are gone, but pods' processes and shims may outlive them: as stopNode does.
  kill(nodeCgroupPids());
  kill(shimPids());
  releaseNode(owner.stateDir);
}

/**
 * Claims the machine's one node for `stateDir`, or throws saying who has it. A record whose
 * node no longer runs is stale: its host state is undone and the claim taken over.
 */
export function claimNode(stateDir: string, log: (l: string) => void): void {
  const owner = readOwner();
  if (owner && owner.stateDir !== stateDir && nodeRunning(owner.stateDir)) {
    throw new Error(
      `another node cluster runs on this machine, from ${owner.stateDir} (one node at a time: the bridge ` +
        `${NODE.bridge} and kube-proxy's iptables chains are global). Stop it first: ` +
        `SI_E2E_STATE=${owner.stateDir} npm run cluster -- down; or start a control plane only: npm run cluster -- up --no-node`,
    );
  }
  undoStaleNode(stateDir, log);
  if (!readOwner()) {
    const foreign = foreignNodeState();
    if (foreign) {
      throw new Error(
        `${foreign}, but no node cluster is recorded in ${OWNER_FILE}: another Kubernetes node may run here. ` +
          `Remove it, or start a control plane only: npm run cluster -- up --no-node`,
      );
    }
    mkdirSync(NODE.runDir, { recursive: true });
    writeFileSync(OWNER_FILE, `${JSON.stringify({ stateDir })}\n`);
  }
}

/** Host setup that must exist before the apiserver starts (it listens on the bridge). */
export function prepareNodeHost(node: NodeState, apiserverPort: number): void {
  mkdirSync(node.dir, { recursive: true });
  setupHost(node.dir, apiserverPort);
}

async function waitFor(what: string, timeoutMs: number, daemons: Daemon[], check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const dead = daemons.find((d) => !isRunning(d));
    if (dead) throw Object.assign(new Error(`${dead.name} exited while waiting for ${what}`), { daemon: dead });
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
}

const ok = (cmd: string, args: string[], env?: NodeJS.ProcessEnv): boolean =>
  spawnSync(cmd, args, { stdio: 'ignore', env: env ?? process.env, timeout: 10_000 }).status === 0;

/** Does a component's /healthz answer 200? (The scheduler serves a self-signed certificate.) */
function healthz(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = (url.startsWith('https:') ? httpsRequest : httpRequest)(url, { timeout: 2000, rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

export function ctr(node: NodePaths, args: string[]): string {
  return execFileSync(join(node.bin, 'ctr'), ['-a', containerdSocket(), '-n', 'k8s.io', ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 16 << 20,
  });
}

/** Imports a Docker or OCI archive into the node's containerd (the CRI namespace k8s.io). */
export function loadImage(node: NodePaths, archive: string): string[] {
  const out = ctr(node, ['images', 'import', '--no-unpack=false', archive]);
  return out.split('\n').flatMap((l) => /^unpacking (\S+) /.exec(l)?.[1] ?? []);
}

/** Imports the test images of `node.imagesDir` (again: an import of the same image is a no-op). */
export function importTestImages(node: NodeState): void {
  for (const tar of Object.keys(NODE.images)) loadImage(node, join(node.imagesDir, tar));
}

export interface StartNodeOptions {
  server: string;
  kubeconfig: string;
  pkiDir: string;
  caCert: string;
  kubectl: string;
  log: (l: string) => void;
  /** Called after each daemon starts, so a failure part-way is still stopped by `down`. */
  save: () => void;
}

export async function startNode(node: NodeState, o: StartNodeOptions): Promise<void> {
  for (const d of ['containerd/certs.d/_default', 'cni-conf', 'cni-ipam', 'kubelet', 'pod-logs']) mkdirSync(nodeFile(node, d), { recursive: true });
  writeFileSync(nodeFile(node, 'containerd', 'config.toml'), containerdConfig(node));
  writeFileSync(nodeFile(node, 'containerd', 'certs.d', '_default', 'hosts.toml'), registryHostsToml());
  writeFileSync(nodeFile(node, 'cni-conf', '10-si-e2e.conflist'), cniConflist(node));
  writeFileSync(nodeFile(node, 'resolv.conf'), "# The e2e node's pods have no name server: they reach only the bridge.\n");
  const start = (name: string, args: string[], env?: NodeJS.ProcessEnv): Daemon => {
    const d = startDaemon(name, join(node.bin, name), args, nodeFile(node, `${name}.log`), { cwd: node.dir, env });
    node.daemons.push(d);
    o.save();
    return d;
  };

  // containerd finds the shim on PATH.
  start('containerd', ['--config', nodeFile(node, 'containerd', 'config.toml')], { ...process.env, PATH: `${node.bin}:${process.env.PATH ?? ''}` });
  await waitFor('containerd', 30_000, node.daemons, () => ok(join(node.bin, 'ctr'), ['-a', containerdSocket(), 'version']));
  const t0 = Date.now();
  importTestImages(node);
  o.log(`cluster: containerd up; test images imported in ${((Date.now() - t0) / 1000).toFixed(1)}s: ${Object.values(NODE.images).join(', ')}`);

  // The kubelet: a client certificate system:node:NAME from the cluster CA (the Node authorizer).
  const kubeletPki = existsSync(join(o.pkiDir, 'kubelet.crt'))
    ? { cert: join(o.pkiDir, 'kubelet.crt'), key: join(o.pkiDir, 'kubelet.key') }
    : clientCert(o.pkiDir, 'kubelet', `/O=system:nodes/CN=system:node:${NODE.name}`);
  writeFileSync(nodeFile(node, 'kubelet.kubeconfig'), kubeletKubeconfig(o.server, { caCert: o.caCert, ...kubeletPki }), { mode: 0o600 });
  writeFileSync(nodeFile(node, 'kubelet-config.yaml'), kubeletConfig(node, o.caCert));
  start('kubelet', kubeletArgs(node));
  const kenv = { ...process.env, KUBECONFIG: o.kubeconfig };
  await waitFor(`node ${NODE.name} Ready`, 90_000, node.daemons, () =>
    ok(o.kubectl, ['wait', '--for=condition=Ready', `node/${NODE.name}`, '--timeout=2s'], kenv),
  );
  // The controller-manager runs without the node lifecycle controller, which would lift this.
  ok(o.kubectl, ['taint', 'node', NODE.name, 'node.kubernetes.io/not-ready:NoSchedule-'], kenv);
  o.log(`cluster: node ${NODE.name} Ready (kubelet, containerd, runc ${RUNC})`);

  node.ports = { scheduler: await freePort(), proxyMetrics: await freePort(), proxyHealthz: await freePort() };
  start('kube-scheduler', schedulerArgs(o.kubeconfig, node.ports.scheduler));
  start('kube-proxy', kubeProxyArgs(o.kubeconfig, { metrics: node.ports.proxyMetrics, healthz: node.ports.proxyHealthz }));
  await waitFor(
    'kube-scheduler and kube-proxy',
    60_000,
    node.daemons,
    async () => (await healthz(`https://127.0.0.1:${node.ports.scheduler}/healthz`)) && (await healthz(`http://127.0.0.1:${node.ports.proxyHealthz}/healthz`)),
  );
  o.log('cluster: kube-scheduler and kube-proxy up');
}

/** Shims of this node's containerd (they outlive it), found by the socket on their command line. */
function shimPids(): number[] {
  const sock = containerdSocket();
  const pids: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
      if (cmd[0]?.endsWith('containerd-shim-runc-v2') && cmd.includes(sock)) pids.push(Number(p));
    } catch {
      /* exited */
    }
  }
  return pids;
}

const kill = (pids: number[]): void => {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
};

/**
 * Stops the node and undoes its host state: no new pods (scheduler), no restarts (kubelet),
 * the pods' processes killed through their cgroups, containerd and its shims, then the mounts
 * under the node's directory, and host.ts's restoreHost. The pods' network namespaces go with
 * their mounts, and their veths with them; the bridge plugin adds no iptables rules (ipMasq off).
 */
export async function stopNode(node: NodeState, stateDir: string): Promise<void> {
  const byName = (n: string): Daemon | undefined => node.daemons.find((d) => d.name === n);
  for (const n of ['kube-scheduler', 'kubelet', 'kube-proxy']) {
    const d = byName(n);
    if (d) await stopDaemon(d);
  }
  if (existsSync(join(node.bin, 'kube-proxy'))) ok(join(node.bin, 'kube-proxy'), ['--cleanup']);
  for (let i = 0; i < 20; i++) {
    const pids = nodeCgroupPids();
    if (pids.length === 0) break;
    kill(pids);
    await new Promise((r) => setTimeout(r, 100));
  }
  const containerd = byName('containerd');
  if (containerd) await stopDaemon(containerd);
  kill(shimPids());
  unmountUnder(node.dir);
  restoreHost(node.dir);
  releaseNode(stateDir);
}

/** If `stateDir` holds the machine's node claim: undo its host state and give the claim up. */
export function releaseNode(stateDir: string): boolean {
  if (readOwner()?.stateDir !== stateDir) return false;
  const dir = join(stateDir, 'node');
  unmountUnder(dir);
  restoreHost(dir);
  rmSync(NODE.runDir, { recursive: true, force: true });
  return true;
}
