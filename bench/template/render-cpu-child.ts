/**
 * @module bench/template/render-cpu-child
 * Child of bench/template/render-cpu.ts, bundled by it with esbuild against one tree's src/ (as
 * the shipped CLI is bundled: no tsx wrappers) and run with plain Node. Times, in CPU µs per
 * call: the whole injectPod; the stages up to select, alone and followed by render (template
 * data, execute, parseOverlay), as injectPod runs them on a fresh copy of the pod; and render
 * and execute alone, repeated on one selected state. For F1 and F2 with the built-in config,
 * and F1 with Istio's chart config when ../shared/conformance/istio is there.
 *
 *   node child.mjs PODS.json BATCH_MS BATCHES WARM_MS [injectPod]      (injectPod: time only that)
 */
import { readFileSync } from 'node:fs';
import type { LoadedConfig } from '../../src/config/types.js';
import { templateData } from '../../src/inject/data.js';
import { injectPod } from '../../src/inject/index.js';
import * as stages from '../../src/inject/stages.js';
import { defaultConfig } from '../../src/profiles/index.js';
import { istioChartConfig, istioChartPresent } from '../../test/support/istio-chart.js';

const [podsFile, batchMs, batches, warmMs, only] = process.argv.slice(2) as [string, string, string, string, string | undefined];
const pods = JSON.parse(readFileSync(podsFile, 'utf8')) as Record<string, unknown>;
const ctx = { namespace: 'shop', mode: 'webhook' as const };

function perCall(fn: () => unknown, n: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) fn();
  const u = process.cpuUsage(start);
  return (u.user + u.system) / n;
}

function measure(fn: () => unknown): number[] {
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < Number(warmMs)) {
    fn();
    n++;
  }
  const iterations = Math.max(5, Math.round(Number(batchMs) / ((performance.now() - t0) / n)));
  return Array.from({ length: Number(batches) }, () => perCall(fn, iterations));
}

const cases: [string, LoadedConfig, unknown][] = [
  ['F1', defaultConfig(), pods.F1],
  ['F2', defaultConfig(), pods.F2],
];
if (istioChartPresent()) cases.push(['F1 Istio chart', istioChartConfig(), pods.F1]);

const out: Record<string, number[]> = {};
for (const [name, config, pod] of cases) {
  const prep = () => stages.select(stages.strip(stages.decideStage(stages.readPod(pod, ctx, config))));
  const selected = prep();
  const m = selected.config.templateOptions.missingKey;
  const options = m === 'default' ? undefined : { missingKey: m };
  const templates = selected.names.map((n) => selected.config.compiledTemplates.get(n)!);
  const execute = () => {
    const data = templateData(selected.config, selected.hooks);
    for (const t of templates) t.execute(data, options);
  };
  out[`${name} injectPod`] = measure(() => injectPod(pod, ctx, config));
  if (only === 'injectPod') continue;
  out[`${name} read+select`] = measure(prep);
  out[`${name} read+select+render`] = measure(() => stages.render(prep()));
  out[`${name} render (one selected state)`] = measure(() => stages.render(selected));
  out[`${name} execute (one selected state)`] = measure(execute);
}
process.stdout.write(JSON.stringify(out));
