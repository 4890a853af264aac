/**
 * @module test/support/bench-inject
 * Timings of injectPod (not a test): a small ReplicaSet pod through the built-in config and
 * through Istio's chart template (when ../shared is present), repeated pods of one workload
 * (rendered text cached) and distinct workloads (cache misses), and a pod with 2,000 env vars.
 *
 *   npx tsx bench/inject-core.ts
 */
import { defaultConfig } from '../src/profiles/index.js';
import type { LoadedConfig } from '../src/config/types.js';
import { injectPod } from '../src/inject/index.js';
import type { JsonObject } from '../src/util/json.js';
import { istioChartConfig, istioChartPresent } from '../test/support/istio-chart.js';
import { recordLoad } from './lib/quiet.js';

recordLoad();

function pod(workload: string, envVars = 0): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${workload}-5d4f8-`,
      labels: { app: workload, 'pod-template-hash': '5d4f8' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${workload}-5d4f8`, uid: 'u', controller: true }],
    },
    spec: {
      containers: [
        {
          name: workload,
          image: `registry.example/${workload}:1.0`,
          ports: [{ name: 'http', containerPort: 8080 }],
          readinessProbe: { httpGet: { path: '/ready', port: 8080 } },
          env: Array.from({ length: envVars }, (_, i) => ({ name: `VAR_${i}`, value: `value-${i}` })),
        },
      ],
    },
  };
}

function bench(name: string, config: LoadedConfig, make: (i: number) => JsonObject, runs: number): void {
  const ctx = { namespace: 'shop', mode: 'webhook' as const };
  for (let i = 0; i < Math.min(200, runs); i++) injectPod(make(i), ctx, config);
  const inputs = Array.from({ length: runs }, (_, i) => make(i + 1000));
  const times: number[] = [];
  for (const p of inputs) {
    const start = process.hrtime.bigint();
    injectPod(p, ctx, config);
    times.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(times.length * q))].toFixed(0);
  console.log(`${name.padEnd(48)} median ${at(0.5).padStart(6)} µs   p90 ${at(0.9).padStart(6)} µs   (${runs} runs)`);
}

const configs: [string, LoadedConfig][] = [['built-in config', defaultConfig()]];
if (istioChartPresent()) configs.push(["Istio's chart template", istioChartConfig()]);
for (const [label, config] of configs) {
  bench(`${label}: small pod, same workload`, config, () => pod('shop'), 3000);
  bench(`${label}: small pod, distinct workloads`, config, (i) => pod(`shop${i}`), 2000);
  bench(`${label}: 2,000 env vars`, config, () => pod('shop', 2000), 200);
}
