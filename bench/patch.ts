/**
 * @module test/support/patch/bench
 * Micro-benchmark of the patch engines (not a test): `node --import tsx bench/patch.ts`.
 * Prints the median time per call over batches, warm, for our diff/merge next to rfc6902 and
 * fast-json-patch on the same inputs.
 */
import fastJsonPatch from 'fast-json-patch';
import * as rfc6902 from 'rfc6902';
import { cloneJson, type JsonObject } from '../src/util/json.js';
import { createPatch } from '../src/patch/json-patch-diff.js';
import { strategicMerge } from '../src/patch/smp.js';
import { recordLoad } from './lib/quiet.js';

recordLoad();

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Median µs per call over `batches` batches of `perBatch` calls, after a warm-up. */
function measure(fn: () => unknown, perBatch: number, batches = 15): number {
  for (let i = 0; i < perBatch; i++) fn();
  const times: number[] = [];
  for (let b = 0; b < batches; b++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < perBatch; i++) fn();
    times.push(Number(process.hrtime.bigint() - t) / 1000 / perBatch);
  }
  return median(times);
}

function once(fn: () => unknown): number {
  const t = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t) / 1000;
}

function basePod(envCount: number, containers = 1): JsonObject {
  const env = Array.from({ length: envCount }, (_, i) => ({ name: `VAR_${i}`, value: `value-${i}` }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'big', namespace: 'default', labels: { app: 'big' } },
    spec: {
      containers: Array.from({ length: containers }, (_, i) => ({
        name: `app-${i}`,
        image: 'app:1',
        env,
        ports: [{ containerPort: 8080 }],
        volumeMounts: [{ name: 'data', mountPath: '/data' }],
      })),
      volumes: [{ name: 'data', emptyDir: {} }],
    },
  };
}

const overlay: JsonObject = {
  metadata: { annotations: { 'sidecar.istio.io/status': '{"containers":["istio-proxy"]}' } },
  spec: {
    initContainers: [{ name: 'istio-init', image: 'proxyv2', args: ['istio-iptables', '-p', '15001'] }],
    containers: [
      {
        name: 'istio-proxy',
        image: 'proxyv2',
        args: ['proxy', 'sidecar'],
        env: Array.from({ length: 20 }, (_, i) => ({ name: `ISTIO_${i}`, value: String(i) })),
        volumeMounts: [{ name: 'istio-envoy', mountPath: '/etc/istio/proxy' }],
      },
    ],
    volumes: [
      { name: 'istio-envoy', emptyDir: { medium: 'Memory' } },
      { name: 'istio-data', emptyDir: {} },
    ],
  },
};

const cases: Array<[string, JsonObject]> = [
  ['small pod (1 container, 5 env)', basePod(5)],
  ['20 containers x 20 env', basePod(20, 20)],
  ['2,000 env vars', basePod(2000)],
];

/** The merged pod, optionally with one env var inserted mid-list in the app container (what probe rewrites and similar edits cause). */
function mergedOf(pod: JsonObject, editAppEnv: boolean): JsonObject {
  const merged = strategicMerge(pod, overlay);
  if (editAppEnv) {
    const app = ((merged.spec as JsonObject).containers as JsonObject[]).find((c) => c.name === 'app-0') as JsonObject;
    (app.env as JsonObject[]).splice(1000, 0, { name: 'INJECTED', value: 'yes' });
  }
  return merged;
}

cases.push(['2,000 env vars + app env edited', basePod(2000)]);

console.log('case | strategicMerge | createPatch (ours) | ops | rfc6902 createPatch | fast-json-patch compare');
for (const [name, pod] of cases) {
  const merged = mergedOf(pod, name.includes('edited'));
  const ops = createPatch(pod, merged);
  const heavy = name.startsWith('2,000') || name.startsWith('20 ');
  const merge = measure(() => strategicMerge(pod, overlay), heavy ? 50 : 2000);
  const ours = measure(() => createPatch(pod, merged), heavy ? 50 : 2000);
  // rfc6902's LCS is quadratic on the edited 2,000-item list (tens of seconds): time it once there.
  const rfc = name.includes('edited')
    ? once(() => rfc6902.createPatch(pod, merged))
    : measure(() => rfc6902.createPatch(pod, merged), heavy ? 2 : 200, heavy ? 5 : 15);
  const fjp = measure(() => fastJsonPatch.compare(pod, merged), heavy ? 50 : 2000);
  console.log(`${name} | ${merge.toFixed(1)} µs | ${ours.toFixed(1)} µs | ${ops.length} | ${rfc.toFixed(1)} µs | ${fjp.toFixed(1)} µs`);
}
const big = basePod(2000);
console.log(`cloneJson of the 2,000-env pod: ${measure(() => cloneJson(big), 50).toFixed(1)} µs`);
