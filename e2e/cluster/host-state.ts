/**
 * @module e2e/cluster/host-state
 * A snapshot of the host state a node could change, to prove that `down` restores it: links,
 * addresses and routes, iptables and ip6tables rules (counters dropped), the sysctls the
 * kubelet, kube-proxy and the CNI plugins touch, mounts, cgroups, the global paths containerd
 * and the kubelet default to, and the node's processes. `e2e/run.ts` takes one before it
 * starts a node and compares after `down`; any difference fails the run.
 *
 * Only state that a node touches is read: other work on the machine (control planes of other
 * clusters, temporary files) does not make the comparison flaky.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { NODE } from './node-config.js';

export type HostState = Record<string, string[]>;

/** Global paths containerd, the kubelet and the CNI plugins use unless told otherwise. */
const GLOBAL_PATHS = [
  '/run/containerd',
  '/var/run/containerd',
  NODE.runDir,
  '/run/netns',
  '/var/run/netns',
  '/run/runc',
  '/run/nri',
  '/var/run/nri',
  '/var/lib/containerd',
  '/var/lib/kubelet',
  '/var/lib/cni',
  '/var/lib/nri',
  '/var/log/pods',
  '/var/log/containers',
  '/opt/containerd',
  '/opt/cni',
  '/etc/cni',
  '/etc/cdi',
  '/var/run/cdi',
  '/etc/containerd',
  '/etc/kubernetes',
  '/run/flannel',
];
const SYSCTL =
  /^(net\.ipv4\.(ip_forward|conf\.(all|default|lo)\.)|net\.ipv6\.conf\.(all|default|lo)\.|net\.bridge\.|kernel\.(panic|keys\.)|vm\.(overcommit|panic_on_oom)|net\.netfilter\.nf_conntrack_(max|tcp_timeout|buckets))/;

const out = (cmd: string, args: string[]): string => spawnSync(cmd, args, { encoding: 'utf8' }).stdout ?? '';
const lines = (text: string): string[] =>
  text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l !== '');

/** iptables-save without its comments and packet counters. */
export function normaliseIptables(text: string): string[] {
  return lines(text)
    .filter((l) => !l.startsWith('#'))
    .map((l) => l.replace(/ \[\d+:\d+\]$/, '').replace(/^(\[\d+:\d+\] )/, ''));
}

/** Link names and kinds, not their counters or (for veths) peers' indexes. */
export function normaliseLinks(text: string): string[] {
  return lines(text).map((l) => {
    const m = /^\d+: ([^:@]+)[^:]*: <([^>]*)>.*?(?: state (\S+))?/.exec(l);
    return m ? `${m[1]} <${m[2]}>` : l;
  });
}

function processes(): string[] {
  const found: string[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').filter(Boolean);
      const exe = readlinkSync(`/proc/${p}/exe`);
      const cgroup = readFileSync(`/proc/${p}/cgroup`, 'utf8');
      if (cgroup.includes(`/${NODE.cgroup}`) || /\/(containerd|containerd-shim-runc-v2|kubelet|kube-proxy|kube-scheduler|runc)$/.test(exe)) {
        found.push(`${exe} ${cmd.slice(1).join(' ')}`.slice(0, 200));
      }
    } catch {
      /* exited, or a kernel thread */
    }
  }
  return found.sort();
}

function cgroups(): string[] {
  const root = '/sys/fs/cgroup';
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .flatMap((h) => {
      try {
        return readdirSync(join(root, h), { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .map((e) => `${h}/${e.name}`);
      } catch {
        return [];
      }
    })
    .sort();
}

export function snapshotHost(): HostState {
  const sysctls = lines(out('sysctl', ['-a'])).filter((l) => SYSCTL.test(l));
  const mounts = lines(readFileSync('/proc/self/mountinfo', 'utf8'))
    .map((l) => {
      const f = l.split(' ');
      const dash = f.indexOf('-');
      return `${f[4]} ${f[dash + 1]} ${f[dash + 2]}`;
    })
    .sort();
  return {
    links: normaliseLinks(out('ip', ['-o', 'link'])).sort(),
    addresses: lines(out('ip', ['-o', 'addr']))
      .map((l) => l.replace(/\s+valid_lft.*$/, '').replace(/^\d+: /, ''))
      .sort(),
    routes: [...lines(out('ip', ['route', 'show', 'table', 'all'])), ...lines(out('ip', ['-6', 'route', 'show', 'table', 'all']))].sort(),
    iptables: normaliseIptables(out('iptables-save', [])),
    ip6tables: normaliseIptables(out('ip6tables-save', [])),
    // Everything netfilter holds, tables that iptables-save does not show included.
    nftables: lines(out('nft', ['-s', 'list', 'ruleset'])).map((l) => l.trim()),
    sysctls,
    mounts,
    cgroups: cgroups(),
    paths: GLOBAL_PATHS.filter((p) => existsSync(p)),
    processes: processes(),
  };
}

/** What differs, one line per entry: `kind: + added` / `kind: - removed`. */
export function diffHost(before: HostState, after: HostState): string[] {
  const diff: string[] = [];
  for (const kind of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const b = new Set(before[kind] ?? []);
    const a = new Set(after[kind] ?? []);
    for (const x of b) if (!a.has(x)) diff.push(`${kind}: - ${x}`);
    for (const x of a) if (!b.has(x)) diff.push(`${kind}: + ${x}`);
  }
  return diff;
}

export const entryCount = (s: HostState): number => Object.values(s).reduce((n, v) => n + v.length, 0);
