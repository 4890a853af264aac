/**
 * @module test/support/bench-manifests
 * Cold-process benchmark of the manifest layer on the M200/M1000 fixtures (performance.md §4):
 * each repetition is a fresh `node` process that reads the manifest, finds pod templates and
 * writes it back with every workload re-serialised. Compares with js-yaml's and the `yaml`
 * package's plain parse in the same conditions. Prints medians of CPU and wall time.
 *
 *   node --import tsx bench/inject-manifests.ts [documents=1000] [repetitions=5]
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { recordLoad } from './lib/quiet.js';

recordLoad();

const CHILD = process.argv[2] === '--child';

async function child(mode: string, count: number): Promise<void> {
  const { generateManifest } = await import('../test/support/manifest-fixtures.js');
  const text = generateManifest(count);
  const wall0 = performance.now();
  const cpu0 = process.cpuUsage();
  if (mode === 'ours') {
    const m = await import('../src/manifest-io/index.js');
    const docs = m.readManifest(text, 'bench.yaml');
    m.writeManifest(docs.map((d) => (m.podTemplates(d.value).length > 0 ? m.replaceDocument(d, d.value) : d)));
  } else if (mode === 'js-yaml') {
    const jsyaml = (await import('js-yaml')).default;
    jsyaml.loadAll(text);
  } else {
    const YAML = await import('yaml');
    YAML.parseAllDocuments(text, { version: '1.1' }).map((d) => d.toJS());
  }
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(JSON.stringify({ cpu: (cpu.user + cpu.system) / 1000, wall: performance.now() - wall0 }));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

if (CHILD) {
  await child(process.argv[3], Number(process.argv[4]));
} else {
  const count = Number(process.argv[2] ?? 1000);
  const reps = Number(process.argv[3] ?? 5);
  const self = fileURLToPath(import.meta.url);
  for (const mode of ['ours', 'js-yaml', 'yaml']) {
    const runs = Array.from(
      { length: reps },
      () => JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', self, '--child', mode, String(count)]).toString()) as { cpu: number; wall: number },
    );
    const label = mode === 'ours' ? 'ours: read + templates + write (workloads re-serialised)' : `${mode}: parse only`;
    console.log(`${label.padEnd(58)} cpu ${median(runs.map((r) => r.cpu)).toFixed(0)} ms, wall ${median(runs.map((r) => r.wall)).toFixed(0)} ms`);
  }
}
