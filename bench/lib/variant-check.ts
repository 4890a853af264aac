/**
 * @module bench/lib/variant-check
 * Before an every-pod-new measurement, every body of a variant set is sent once to the server
 * measured and its answer checked (HTTP 200, allowed, a patch, the request's own uid): a body a
 * server skips or rejects would measure a fast path, not an injection. Shared by the main
 * section, the Istio section and the Pepr section (each server compared is checked).
 */
import { readFileSync } from 'node:fs';
import { makeAgent, sendOne } from '../../test/support/load-client.js';
import { VARIANT_DESCRIPTIONS, type VariantFiles } from '../fixtures.js';
import { WEBHOOK_PATH } from './load.js';
import { median } from './stats.js';
import type { VariantCheck } from './types.js';

/** Send every body of `v` once (in order, one keep-alive connection) and count the answers as expected and the distinct patches. */
export async function checkVariants(port: number, v: VariantFiles, path = WEBHOOK_PATH): Promise<VariantCheck> {
  const agent = makeAgent(1, {});
  const failures: string[] = [];
  const patches = new Set<string>();
  const ops: number[] = [];
  let ok = 0;
  for (let i = 0; i < v.files.length; i++) {
    let parsed: { response?: { uid?: string; allowed?: boolean; patch?: string } } = {};
    const r = await sendOne(
      agent,
      { port },
      {
        kind: 'valid',
        label: v.set,
        path,
        headers: { 'Content-Type': 'application/json' },
        body: readFileSync(v.files[i]),
        check: (_s, b) => void (parsed = JSON.parse(b.toString('utf8')) as typeof parsed),
      },
      performance.now(),
    );
    const patch = parsed.response?.patch;
    const n = patch === undefined ? 0 : (JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) as unknown[]).length;
    const why =
      r.status !== 200
        ? `HTTP ${r.status}${r.problem ? ` (${r.problem})` : ''}`
        : parsed.response?.allowed !== true
          ? 'not allowed'
          : parsed.response.uid !== v.uids[i]
            ? `uid ${parsed.response.uid} for ${v.uids[i]}`
            : n === 0
              ? 'no patch'
              : undefined;
    if (why === undefined) {
      ok++;
      ops.push(n);
      patches.add(patch!);
    } else if (failures.length < 5) failures.push(`#${i}: ${why}`);
  }
  agent.destroy();
  const sorted = [...v.bytes].sort((a, b) => a - b);
  return {
    set: v.set,
    describe: VARIANT_DESCRIPTIONS[v.set],
    count: v.files.length,
    bytesMin: sorted[0],
    bytesMedian: median(sorted),
    bytesMax: sorted[sorted.length - 1],
    ok,
    failures,
    patchOps: median(ops),
    distinctPatches: patches.size,
  };
}

/** One log line per check. */
export function describeCheck(c: VariantCheck, server: string): string {
  return `${c.set} to ${server}: ${c.count} bodies, ${c.bytesMin}-${c.bytesMax} B, ${c.ok} answered HTTP 200 with a patch and their uid, ${c.distinctPatches} distinct patches${c.failures.length ? `; UNEXPECTED: ${c.failures.join('; ')}` : ''}`;
}

/** Throws unless every body of every check was answered as expected. */
export function requireAllInjected(checks: { server: string; check: VariantCheck }[]): void {
  const bad = checks.filter((c) => c.check.ok !== c.check.count);
  if (bad.length > 0)
    throw new Error(`variant bodies not answered as expected: ${bad.map((c) => `${c.check.set} to ${c.server}: ${c.check.failures.join('; ')}`).join(' | ')}`);
}
