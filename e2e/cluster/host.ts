/**
 * @module e2e/cluster/host
 * The host state a node changes, made and undone in one place: the bridge and the service
 * route, the containment guard (iptables), the cgroup the pods live under, the sysctls the
 * kubelet and the bridge plugin set, and the chains the kubelet and kube-proxy add. `setupHost`
 * records what it found (host-saved.json in the node's directory) and `restoreHost` puts it
 * back; both are idempotent, so a half-started node is undone by the same code.
 *
 * Containment: pods reach only the bridge's namespaces and the apiserver. The guard sits in the
 * mangle table, which the kernel walks before the filter table, so no ACCEPT that kube-proxy or
 * the kubelet add to FORWARD or INPUT can come before it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE } from './node-config.js';

/** What the kubelet (setupKernelTunables) and the bridge plugin (ip_forward) may change. */
const SYSCTLS = [
  'net.ipv4.ip_forward',
  'kernel.panic',
  'kernel.panic_on_oops',
  'vm.overcommit_memory',
  'vm.panic_on_oom',
  'kernel.keys.root_maxkeys',
  'kernel.keys.root_maxbytes',
] as const;

/**
 * Global paths the kubelet or containerd create even when told to keep their state elsewhere:
 * the kubelet's container-log links and device-plugin socket directory (fixed paths), and
 * libcni's result cache, which containerd does not let us move. Removed by restoreHost when
 * they were not there before.
 */
const GLOBAL_PATHS = ['/var/log/containers', '/var/lib/kubelet', '/var/lib/cni'] as const;

const GUARD_FORWARD = 'SI-E2E-FORWARD';
const GUARD_INPUT = 'SI-E2E-INPUT';
/** Chains the node's components own: the kubelet's and kube-proxy's (KUBE-), the CNI plugins' and ours. */
const OWNED_CHAIN = /^(KUBE-|CNI-|SI-E2E-)/;
const CGROUP_ROOT = '/sys/fs/cgroup';

interface Saved {
  sysctls: Record<string, string>;
  absentPaths: string[];
  nftTables: string[];
}

function run(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}
function tryRun(cmd: string, args: string[]): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}

const sysctlPath = (key: string): string => `/proc/sys/${key.replace(/\./g, '/')}`;
const readSysctl = (key: string): string => readFileSync(sysctlPath(key), 'utf8').trim();

/** The node's iptables chains (ours, the kubelet's, kube-proxy's) that exist now, as table:chain. */
function ownedChains(tool: 'iptables' | 'ip6tables'): string[] {
  const out = spawnSync(`${tool}-save`, [], { encoding: 'utf8' }).stdout ?? '';
  let table = '';
  const chains: string[] = [];
  for (const line of out.split('\n')) {
    if (line.startsWith('*')) table = line.slice(1);
    else if (line.startsWith(':')) {
      const name = line.slice(1).split(' ')[0]!;
      if (OWNED_CHAIN.test(name)) chains.push(`${table}:${name}`);
    }
  }
  return chains;
}

/**
 * Deletes the rules that jump to the node's chains, then the chains themselves, in every table,
 * from `<tool>-save`'s listing (so it works whatever order they were added in).
 */
function removeOwnedChains(tool: 'iptables' | 'ip6tables'): void {
  const out = spawnSync(`${tool}-save`, [], { encoding: 'utf8' }).stdout ?? '';
  let table = '';
  const jumps: string[][] = [];
  const chains = new Map<string, string[]>();
  for (const line of out.split('\n')) {
    if (line.startsWith('*')) table = line.slice(1);
    else if (line.startsWith(':')) {
      const name = line.slice(1).split(' ')[0]!;
      if (OWNED_CHAIN.test(name)) chains.set(table, [...(chains.get(table) ?? []), name]);
    } else if (line.startsWith('-A ')) {
      const words = line.split(' ');
      const chain = words[1]!;
      const target = words[words.indexOf('-j') + 1] ?? '';
      if (!OWNED_CHAIN.test(chain) && OWNED_CHAIN.test(target)) jumps.push(['-t', table, '-D', ...splitRule(line.slice(3))]);
    }
  }
  for (const args of jumps) tryRun(tool, args);
  for (const [t, names] of chains) {
    for (const c of names) tryRun(tool, ['-t', t, '-F', c]);
    for (const c of names) tryRun(tool, ['-t', t, '-X', c]);
  }
}

/** Splits an iptables-save rule into arguments, keeping "quoted strings" (comments) whole. */
export function splitRule(rule: string): string[] {
  const args: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (let m = re.exec(rule); m; m = re.exec(rule)) args.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!);
  return args;
}

/** The v1 hierarchies (and the unified one) where the node's cgroup may appear. */
function cgroupHierarchies(): string[] {
  if (!existsSync(CGROUP_ROOT)) return [];
  return readdirSync(CGROUP_ROOT)
    .map((h) => join(CGROUP_ROOT, h))
    .filter((h) => existsSync(join(h, 'cgroup.procs')));
}

/** Every process in the node's cgroup tree (the pods' processes), from any hierarchy. */
export function nodeCgroupPids(): number[] {
  const pids = new Set<number>();
  const walk = (dir: string): void => {
    try {
      for (const p of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n')) if (p) pids.add(Number(p));
      for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) walk(join(dir, e.name));
    } catch {
      /* removed meanwhile */
    }
  };
  for (const h of cgroupHierarchies()) if (existsSync(join(h, NODE.cgroup))) walk(join(h, NODE.cgroup));
  return [...pids];
}

export function setupHost(dir: string, apiserverPort: number): void {
  const savedFile = join(dir, 'host-saved.json');
  if (!existsSync(savedFile)) {
    const saved: Saved = {
      sysctls: Object.fromEntries(SYSCTLS.map((k) => [k, readSysctl(k)])),
      absentPaths: GLOBAL_PATHS.filter((p) => !existsSync(p)),
      nftTables: nftTables(),
    };
    writeFileSync(savedFile, `${JSON.stringify(saved, null, 2)}\n`);
  }
  const br = NODE.bridge;
  if (!tryRun('ip', ['link', 'show', br])) {
    run('ip', ['link', 'add', br, 'type', 'bridge']);
    // No IPv6 on the bridge: the pods get IPv4 only, and nothing reaches the host over v6.
    writeFileSync(`/proc/sys/net/ipv6/conf/${br}/disable_ipv6`, '1');
    run('ip', ['addr', 'add', `${NODE.gateway}/24`, 'dev', br]);
    run('ip', ['link', 'set', br, 'up']);
  }
  // Service ClusterIPs go to the bridge (kube-proxy rewrites them there), never the default route.
  run('ip', ['route', 'replace', NODE.serviceCidr, 'dev', br, 'src', NODE.gateway]);
  guard(apiserverPort);
  for (const h of cgroupHierarchies()) {
    const cg = join(h, NODE.cgroup);
    if (!existsSync(cg)) run('mkdir', [cg]);
    // A new cpuset cgroup starts with no CPUs and no memory nodes: give it its parent's.
    if (h.endsWith('/cpuset')) {
      for (const f of ['cpuset.cpus', 'cpuset.mems']) writeFileSync(join(cg, f), readFileSync(join(h, f)));
    }
  }
}

function guard(apiserverPort: number): void {
  const br = NODE.bridge;
  for (const tool of ['iptables', 'ip6tables'] as const) {
    for (const [chain, hook] of [
      [GUARD_FORWARD, 'FORWARD'],
      [GUARD_INPUT, 'INPUT'],
    ] as const) {
      tryRun(tool, ['-t', 'mangle', '-N', chain]);
      run(tool, ['-t', 'mangle', '-F', chain]);
      if (!tryRun(tool, ['-t', 'mangle', '-C', hook, '-j', chain])) run(tool, ['-t', 'mangle', '-I', hook, '1', '-j', chain]);
    }
    const add = (chain: string, ...rule: string[]): void => {
      run(tool, ['-t', 'mangle', '-A', chain, ...rule]);
    };
    // Nothing is routed between the bridge and any other interface, either way.
    add(GUARD_FORWARD, '-i', br, '!', '-o', br, '-j', 'DROP');
    add(GUARD_FORWARD, '-o', br, '!', '-i', br, '-j', 'DROP');
    // This machine's own traffic (to the bridge's address too) arrives on lo.
    add(GUARD_INPUT, '-i', 'lo', '-j', 'RETURN');
    if (tool === 'iptables') {
      // From the pods, the host answers only the apiserver (the `kubernetes` Service's endpoint)
      // and replies to connections the host opened (the kubelet's probes, kubectl exec).
      add(GUARD_INPUT, '-i', br, '-m', 'conntrack', '--ctstate', 'ESTABLISHED,RELATED', '-j', 'RETURN');
      add(GUARD_INPUT, '-i', br, '-d', NODE.gateway, '-p', 'tcp', '--dport', String(apiserverPort), '-j', 'RETURN');
      add(GUARD_INPUT, '-i', br, '-j', 'DROP');
      // The bridge's address (apiserver, kubelet) is not reachable from other machines.
      add(GUARD_INPUT, '-d', NODE.gateway, '-j', 'DROP');
    } else {
      add(GUARD_INPUT, '-i', br, '-j', 'DROP');
    }
  }
}

/** Are there node chains (from the kubelet or kube-proxy) that this node did not create? */
export function foreignNodeState(): string | undefined {
  if (tryRun('ip', ['link', 'show', NODE.bridge])) return `the bridge ${NODE.bridge} exists`;
  const chains = [...ownedChains('iptables'), ...ownedChains('ip6tables')];
  if (chains.length > 0) return `iptables chains of a node exist (${chains.slice(0, 4).join(', ')}${chains.length > 4 ? ', ...' : ''})`;
  return undefined;
}

/**
 * The nftables tables that exist (`family name`). iptables-nft creates a table on first use and
 * never deletes it, so `nft` (Debian's nftables) removes the ones the node created.
 */
function nftTables(): string[] {
  const r = spawnSync('nft', ['list', 'tables'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error("nft (Debian package nftables) is needed to restore the host's tables after the node: apt-get install nftables");
  return r.stdout.split('\n').flatMap((l) => /^table (\S+ \S+)$/.exec(l.trim())?.[1] ?? []);
}

/** Undoes setupHost and whatever the node's components added. Safe to run twice. */
export function restoreHost(dir: string): void {
  removeOwnedChains('iptables');
  removeOwnedChains('ip6tables');
  tryRun('ip', ['link', 'del', NODE.bridge]); // its addresses, routes and veths go with it
  for (const h of cgroupHierarchies()) removeCgroupTree(join(h, NODE.cgroup));
  const savedFile = join(dir, 'host-saved.json');
  if (existsSync(savedFile)) {
    const saved = JSON.parse(readFileSync(savedFile, 'utf8')) as Saved;
    for (const [k, v] of Object.entries(saved.sysctls)) {
      if (readSysctl(k) !== v) writeFileSync(sysctlPath(k), v);
    }
    for (const p of saved.absentPaths) rmSync(p, { recursive: true, force: true });
    for (const t of nftTables()) if (!saved.nftTables.includes(t)) tryRun('nft', ['delete', 'table', ...t.split(' ')]);
    rmSync(savedFile);
  }
}

function removeCgroupTree(dir: string): void {
  if (!existsSync(dir)) return;
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) removeCgroupTree(join(dir, e.name));
  try {
    rmdirSync(dir);
  } catch {
    /* a process is still inside: stopNode kills them first */
  }
}

/** Mount points under a directory, deepest first, from /proc/self/mountinfo. */
function mountsUnder(dir: string): string[] {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[4]?.replace(/\\040/g, ' ') ?? '')
    .filter((m) => m === dir || m.startsWith(prefix))
    .sort((a, b) => b.length - a.length);
}

export function unmountUnder(dir: string): void {
  for (let round = 0; round < 3; round++) {
    const mounts = mountsUnder(dir);
    if (mounts.length === 0) return;
    for (const m of mounts) if (!tryRun('umount', [m])) tryRun('umount', ['-l', m]);
  }
}
