// Child of bench/template/render-cpu.ts (plain Node, no tsx: it loads a tree's built dist/, the
// code that ships). Times, in CPU µs per call, for each fixture pod: the whole injectPod; the
// stages up to select, alone and followed by render (template data + execute + parseOverlay),
// as injectPod runs them (on a fresh copy of the pod each time); and render and template
// execution alone, repeated on one selected state (the same pod copy and profile hooks).
//   node bench/template/render-cpu-child.mjs ROOT PODS.json BATCH_MS BATCHES WARM_MS [src]
// With `src` last, ROOT's src/*.ts are loaded instead (run this under `node --import tsx`).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [root, podsFile, batchMs, batches, warmMs, mode] = process.argv.slice(2);
const ext = mode === 'src' ? 'ts' : 'js';
const dir = join(root, mode === 'src' ? 'src' : 'dist');
const load = (p) => import(pathToFileURL(join(dir, `${p}.${ext}`)).href);
const { injectPod } = await load('inject/index');
const { defaultConfig } = await load('profiles/index');
const stages = await load('inject/stages');
const { templateData } = await load('inject/data');

const config = defaultConfig();
const pods = JSON.parse(readFileSync(podsFile, 'utf8'));
const ctx = { namespace: 'shop', mode: 'webhook' };

function perCall(fn, n) {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) fn();
  const u = process.cpuUsage(start);
  return (u.user + u.system) / n;
}

function measure(fn) {
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < Number(warmMs)) {
    fn();
    n++;
  }
  const iterations = Math.max(5, Math.round(Number(batchMs) / ((performance.now() - t0) / n)));
  return Array.from({ length: Number(batches) }, () => perCall(fn, iterations));
}

const out = {};
for (const [name, pod] of Object.entries(pods)) {
  const read = stages.readPod(pod, ctx, config);
  const decided = stages.decideStage(read);
  const selected = stages.select(stages.strip(decided));
  const m = selected.config.templateOptions.missingKey;
  const options = m === 'default' ? undefined : { missingKey: m };
  const templates = selected.names.map((n) => selected.config.compiledTemplates.get(n));
  const execute = () => {
    const data = templateData(selected.config, selected.hooks);
    for (const t of templates) t.execute(data, options);
  };
  const prep = () => stages.select(stages.strip(stages.decideStage(stages.readPod(pod, ctx, config))));
  out[`${name} injectPod`] = measure(() => injectPod(pod, ctx, config));
  out[`${name} read+select`] = measure(prep);
  out[`${name} read+select+render`] = measure(() => stages.render(prep()));
  out[`${name} render (one selected state)`] = measure(() => stages.render(selected));
  out[`${name} execute (one selected state)`] = measure(execute);
}
process.stdout.write(JSON.stringify(out));
