/**
 * The node's configuration keeps every path inside the node's directory (or the short socket
 * directory), so `down` finds everything; a shim's socket path fits a unix socket; the kubelet
 * and CNI configurations parse. Pure: no daemon runs here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { NODE, cniConflist, containerdConfig, containerdSocket, kubeletArgs, kubeletConfig, type NodePaths } from './node-config.js';

const paths: NodePaths = {
  dir: '/root/.cache/sidecar-injector/e2e/cluster-a-rather-long-private-state-directory-name/node',
  bin: '/cache/node/bin',
  cniBin: '/cache/node/cni-bin',
  runc: '/usr/sbin/runc',
};
const allowed = [paths.dir, NODE.runDir, paths.bin, paths.cniBin, paths.runc];
const absolutePaths = (text: string): string[] => [...text.matchAll(/'(\/[^']*)'|(?:^|[\s=:])(\/[\w./-]+)/gm)].map((m) => m[1] ?? m[2]!);

test('containerd is told a place inside the node for every path it would take from a global default', () => {
  const config = containerdConfig(paths);
  const found = absolutePaths(config);
  assert.ok(found.length >= 10, `too few paths found: ${found.join(' ')}`);
  for (const p of found)
    assert.ok(
      allowed.some((a) => p === a || p.startsWith(`${a}/`)),
      `${p} is outside the node's directories`,
    );
  for (const key of ['root', 'state', 'address', 'config_path', 'conf_dir', 'socket_dir', 'Root', 'path'])
    assert.match(config, new RegExp(`\\b${key} = '`), key);
  assert.match(config, /enable_cdi = false/);
  assert.match(config, /restrict_oom_score_adj = true/);
});

test('a shim socket path (64-character hash) fits in a unix socket address', () => {
  const socketDir = /socket_dir = '([^']+)'/.exec(containerdConfig(paths))![1]!;
  assert.ok(`${socketDir}/${'f'.repeat(64)}`.length <= 107);
  assert.ok(`${containerdSocket()}.ttrpc`.length <= 107);
});

test('the kubelet keeps its state, logs, certificates and resolv.conf inside the node', () => {
  const config = parse(kubeletConfig(paths, '/state/pki/ca.crt')) as Record<string, unknown>;
  assert.equal(config.failCgroupV1, false);
  assert.equal(config.cgroupRoot, `/${NODE.cgroup}`);
  assert.equal(config.address, NODE.gateway);
  assert.deepEqual((config.authentication as { anonymous: unknown }).anonymous, { enabled: false });
  for (const key of ['podLogsDir', 'resolvConf']) assert.ok(String(config[key]).startsWith(`${paths.dir}/`), key);
  const args = kubeletArgs(paths);
  for (const flag of ['--root-dir', '--cert-dir', '--config', '--kubeconfig']) {
    const value = args.find((a) => a.startsWith(`${flag}=`))?.split('=')[1];
    assert.ok(value?.startsWith(`${paths.dir}/`), `${flag}=${value}`);
  }
});

test('the CNI network is the bridge with no masquerade, its IPAM state inside the node', () => {
  const net = JSON.parse(cniConflist(paths)) as { plugins: Array<Record<string, unknown> & { ipam: Record<string, unknown> }> };
  assert.equal(net.plugins.length, 1);
  assert.equal(net.plugins[0]!.bridge, NODE.bridge);
  assert.equal(net.plugins[0]!.ipMasq, false);
  assert.ok(String(net.plugins[0]!.ipam.dataDir).startsWith(`${paths.dir}/`));
});
