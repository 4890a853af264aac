/**
 * Extracts the three Istio config files from `istioctl manifest generate` output (run by
 * e2e/build/istio.sh): the istio-sidecar-injector ConfigMap's `config` and `values` keys and the
 * istio ConfigMap's `mesh` key, written as inject-config.yaml, values.json and mesh.yaml.
 *
 *   npx tsx scripts/istio-extract-config.ts MANIFEST.yaml OUT_DIR
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

const [manifest, out] = process.argv.slice(2);
if (manifest === undefined || out === undefined) {
  console.error('usage: istio-extract-config.ts MANIFEST.yaml OUT_DIR');
  process.exit(2);
}

type ConfigMap = { kind?: unknown; metadata?: { name?: unknown }; data?: Record<string, unknown> };
const maps = new Map<string, Record<string, unknown>>();
for (const doc of parseAllDocuments(readFileSync(manifest, 'utf8'))) {
  const v = doc.toJS() as ConfigMap | null;
  if (v?.kind === 'ConfigMap' && typeof v.metadata?.name === 'string' && v.data !== undefined) maps.set(v.metadata.name, v.data);
}

function key(map: string, k: string): string {
  const value = maps.get(map)?.[k];
  if (typeof value !== 'string' || value.length === 0) {
    console.error(`istio-extract-config: ConfigMap ${map} has no ${k} key in ${manifest} (found: ${[...maps.keys()].join(', ')})`);
    process.exit(1);
  }
  return value;
}

// Write all three or none (a half-written set would make the peer and our side disagree).
const files: [string, string][] = [
  ['inject-config.yaml', key('istio-sidecar-injector', 'config')],
  ['values.json', key('istio-sidecar-injector', 'values')],
  ['mesh.yaml', key('istio', 'mesh')],
];
for (const [name, text] of files) writeFileSync(join(out, `${name}.tmp`), text);
for (const [name] of files) renameSync(join(out, `${name}.tmp`), join(out, name));
console.error(`istio-extract-config: wrote ${files.map(([n]) => n).join(', ')} to ${out}`);
