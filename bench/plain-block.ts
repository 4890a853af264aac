/**
 * @module bench/plain-block
 * Issue 18, the cache-miss read of a rendered overlay: µs per read of the built-in template's
 * overlay (and of Istio's sidecar overlay when ../shared/conformance/istio is there) by the
 * one-pass reader (yaml/plain-block.ts) against the library path (parseYamlDocument), in one
 * process. Rounds alternate the two readers so machine noise hits both alike; the ratio is the
 * median of the per-round ratios.
 *
 *   npx tsx bench/plain-block.ts [--rounds 15] [--reads 2000]
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { LoadedConfig } from '../src/config/types.js';
import { readPod, select } from '../src/inject/stages.js';
import { stripPod } from '../src/inject/strip.js';
import { templateData } from '../src/inject/data.js';
import type { InjectionContext } from '../src/inject/types.js';
import { podTemplates } from '../src/manifest-io/index.js';
import { defaultConfigWith, replicaSetPod, WEBHOOK } from '../test/support/inject-fixtures.js';
import { istioChartConfig, istioChartPresent, ISTIO_INJECT_DIR } from '../test/support/istio-chart.js';
import type { JsonObject } from '../src/util/json.js';
import { parseYamlDocument, readPlainBlockYaml } from '../src/yaml/index.js';
import { recordLoad } from './lib/quiet.js';

recordLoad();

const argv = process.argv.slice(2);
const arg = (name: string, fallback: number): number => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const ROUNDS = arg('rounds', 15);
const READS = arg('reads', 2000);

function rendered(pod: unknown, ctx: InjectionContext, config: LoadedConfig, name: string): string {
  const read = readPod(pod, ctx, config);
  stripPod(read.work, config, []);
  const data = templateData(config, select(read).hooks);
  const m = config.templateOptions.missingKey;
  return config.compiledTemplates.get(name)!.execute(data, m === 'default' ? undefined : { missingKey: m });
}

const overlays: [string, string][] = [['built-in sidecar', rendered(replicaSetPod(), WEBHOOK, defaultConfigWith(), 'sidecar')]];
if (istioChartPresent()) {
  const doc = parseAllDocuments(readFileSync(`${ISTIO_INJECT_DIR}hello.yaml`, 'utf8'))[0].toJS() as JsonObject;
  const ref = podTemplates(doc)[0];
  const ctx: InjectionContext = { namespace: '', mode: 'manual', owner: { kind: ref.owner.kind, name: ref.owner.name, apiVersion: ref.owner.apiVersion } };
  overlays.push(["Istio's sidecar (hello.yaml)", rendered(ref.template, ctx, istioChartConfig(), 'sidecar')]);
}

/** µs per read of `read` on `text`, over READS reads. */
function timeReads(read: (text: string) => unknown, text: string): number {
  let sink = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < READS; i++) sink += read(text) === undefined ? 0 : 1;
  const ns = Number(process.hrtime.bigint() - t0);
  if (sink !== READS) throw new Error('a reader gave nothing');
  return ns / 1000 / READS;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const fast = (t: string) => readPlainBlockYaml(t);
const library = (t: string) => parseYamlDocument(t).value;

console.log(`| Overlay | Bytes | One-pass reader µs/read | Library µs/read | Library / one-pass (median of ${ROUNDS} rounds) |`);
console.log('|---|---|---|---|---|');
for (const [name, text] of overlays) {
  if (readPlainBlockYaml(text) === undefined) throw new Error(`${name}: the one-pass reader does not take it`);
  // Warm both up before measuring.
  timeReads(fast, text);
  timeReads(library, text);
  const f: number[] = [];
  const l: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate which reader goes first.
    let fu: number;
    let lu: number;
    if (r % 2 === 0) {
      fu = timeReads(fast, text);
      lu = timeReads(library, text);
    } else {
      lu = timeReads(library, text);
      fu = timeReads(fast, text);
    }
    f.push(fu);
    l.push(lu);
    ratios.push(lu / fu);
  }
  console.log(`| ${name} | ${text.length} | ${median(f).toFixed(1)} | ${median(l).toFixed(1)} | ${median(ratios).toFixed(1)}x |`);
}
