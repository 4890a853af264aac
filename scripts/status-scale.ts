/**
 * @module scripts/status-scale
 * Issue 15, part 4, item 4: `status` on a namespace with thousands of pods, on the real
 * control plane. Pods are created through the apiserver (no kubelet needed for a pod to exist):
 * half injected exactly as the webhook would (the core's injectPod, then created as is), half
 * without a sidecar, in a namespace labelled for injection. Then, per size, the wall time and
 * peak RSS of `status -o json` (the built CLI), next to `kubectl get pods -o json` on the same
 * namespace as a same-run baseline (it lists the same pods, and does nothing else).
 *
 *   KUBECONFIG=... PATH=<bin dir>:$PATH tsx scripts/status-scale.ts [--sizes 1000,3000] [--runs 3] [--keep]
 *
 * Namespace `i15-status-scale` (deleted at the end unless --keep). Prints a Markdown table.
 */
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { connect } from '../src/kube/client.js';
import { defaultConfig } from '../src/profiles/index.js';
import { injectPod } from '../src/inject/pipeline.js';

const NS = 'i15-status-scale';
const argv = process.argv.slice(2);
const arg = (name: string, fallback: string): string => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : fallback;
};
const sizes = arg('sizes', '1000,3000').split(',').map(Number);
const runs = Number(arg('runs', '3'));
const cli = join(import.meta.dirname, '../dist/bin/sidecar-injector.mjs');

function timed(command: string, args: string[]): { seconds: number; maxRssMiB: number; status: number; bytes: number } {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', command, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const last = r.stderr.trim().split('\n').at(-1) ?? '';
  const [seconds, kb] = last.split(' ').map(Number);
  return { seconds, maxRssMiB: kb / 1024, status: r.status ?? -1, bytes: r.stdout.length };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const kube = connect();
  const nsPath = `/api/v1/namespaces/${NS}`;
  await kube.delete(nsPath).catch(() => undefined);
  for (let i = 0; i < 120; i++) {
    if ((await kube.find(nsPath)) === undefined) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  await kube.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS, labels: { 'istio-injection': 'enabled' } } });
  for (let i = 0; i < 60; i++) {
    if ((await kube.find(`${nsPath}/serviceaccounts/default`)) !== undefined) break;
    await new Promise((r) => setTimeout(r, 500));
  }

  const config = defaultConfig();
  const podAt = (i: number): unknown => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `p-${i}`, namespace: NS, labels: { app: `app-${i % 50}` } },
      spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] },
    };
    if (i % 2 === 1) return pod;
    const r = injectPod(pod, { namespace: NS, mode: 'webhook' }, config);
    return r.kind === 'injected' ? r.pod : pod;
  };

  const rows: string[] = [];
  let created = 0;
  for (const size of sizes) {
    const t0 = performance.now();
    // 16 creates in flight: quick, and polite to an apiserver others share.
    let next = created;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < size) {
          const i = next++;
          await kube.post(`${nsPath}/pods`, podAt(i));
        }
      }),
    );
    created = Math.max(created, size);
    const createSeconds = (performance.now() - t0) / 1000;
    const ours = [];
    const base = [];
    for (let r = 0; r < runs; r++) {
      base.push(timed('kubectl', ['get', 'pods', '-n', NS, '-o', 'json']));
      ours.push(timed(process.execPath, [cli, 'status', '-n', NS, '-o', 'json']));
    }
    if (ours.some((o) => o.status !== 9)) throw new Error(`status should exit 9 (half the pods are missing): ${ours.map((o) => o.status).join(',')}`);
    const s = median(ours.map((o) => o.seconds));
    const k = median(base.map((o) => o.seconds));
    const rs = median(ours.map((o) => o.maxRssMiB));
    const rk = median(base.map((o) => o.maxRssMiB));
    rows.push(
      `| ${size} | ${s.toFixed(2)} s | ${rs.toFixed(0)} MiB | ${k.toFixed(2)} s | ${rk.toFixed(0)} MiB | ${(s / k).toFixed(2)}x | ${(rs / rk).toFixed(2)}x | ${(ours[0].bytes / 1024).toFixed(0)} KiB | ${createSeconds.toFixed(0)} s |`,
    );
    console.error(rows.at(-1));
  }
  console.log(
    `Run of ${new Date().toISOString()}: ${cpus().length} CPUs, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' / ')}, Node ${process.version}, ${runs} runs per size (median)\n`,
  );
  console.log('| Pods | status -o json | status RSS | kubectl get pods -o json | kubectl RSS | time / kubectl | RSS / kubectl | JSON out | create pods |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  if (!argv.includes('--keep')) await kube.delete(nsPath);
  kube.close();
}

await main();
