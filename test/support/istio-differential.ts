/**
 * @module test/support/istio-differential
 * Differential testing against the live Istio peer: each generated workload goes through
 * `istioctl kube-inject` (the real Istio, batched) and through our `inject` (the CLI's
 * manifest-level path, `injectObject`) with the same config files, and the two answers are
 * compared:
 *
 * - the decision: injected, skipped, or refused with an error;
 * - for templates both injected, the pod template semantically: normalised as Go's typed round
 *   trip would (quantities canonical, nulls, empty maps and lists equal to absent ones, zero probe
 *   counters), and the `sidecar.istio.io/status` annotation compared on Istio's keys only (ours
 *   carries more keys, for `uninject`).
 *
 * Each workload is then identical, an intended deviation (a documented entry of
 * INTENDED_DEVIATIONS matched it), or unexplained.
 */
import { InjectorError } from '../../src/errors.js';
import { injectObject } from '../../src/manual-inject/index.js';
import { podTemplates } from '../../src/manifest-io/index.js';
import type { LoadedConfig } from '../../src/config/types.js';
import { deepEqual, isPlainObject, type JsonObject, type JsonValue } from '../../src/util/json.js';
import { differences, normalize } from './istio-conformance.js';
import { INTENDED_DEVIATIONS, type Deviation, type DiffCase, type Outcome } from './istio-deviations.js';
import { kubeInject, peerConfig, type IstioPeer, type PeerResult } from './istio-peer.js';
import { sampleWorkloads } from './workload-arbitraries.js';

export type { Outcome };

const STATUS = 'sidecar.istio.io/status';

/**
 * Plain (non-pointer) booleans of the pod and container structs: Go's typed round trip drops
 * them when false (omitempty), while we keep the input as written.
 */
const PLAIN_BOOLS = new Set(['hostNetwork', 'hostPID', 'hostIPC', 'stdin', 'stdinOnce', 'tty', 'readOnly']);

/** Empty maps and lists are absent (Go's omitempty); the rest as in the golden comparison. */
function dropEmpty(v: JsonValue): JsonValue | undefined {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map((x) => dropEmpty(x) ?? {});
  if (!isPlainObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === false && PLAIN_BOOLS.has(k)) continue;
    const y = dropEmpty(x);
    if (y !== undefined) out[k] = y;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** Metadata and spec of the (only) pod template of a document, normalised. */
export function templateOf(doc: JsonValue): JsonObject {
  const ref = podTemplates(doc)[0];
  const t = { metadata: (ref.template.metadata ?? {}) as JsonObject, spec: (ref.template.spec ?? {}) as JsonObject };
  return (dropEmpty(normalize(t)) ?? {}) as JsonObject;
}

/** The status annotation reduced to the keys Istio writes (ours has more, for uninject). */
function alignStatus(ours: JsonObject, istio: JsonObject): JsonObject {
  const o = (ours.metadata as JsonObject | undefined)?.annotations as JsonObject | undefined;
  const i = (istio.metadata as JsonObject | undefined)?.annotations as JsonObject | undefined;
  if (typeof o?.[STATUS] !== 'string' || typeof i?.[STATUS] !== 'string') return ours;
  try {
    const os = JSON.parse(o[STATUS] as string) as JsonObject;
    const is = JSON.parse(i[STATUS] as string) as JsonObject;
    const aligned = JSON.stringify(Object.fromEntries(Object.keys(is).map((k) => [k, os[k] ?? null])));
    const same = deepEqual(JSON.parse(aligned) as JsonValue, is as JsonValue);
    return { ...ours, metadata: { ...(ours.metadata as JsonObject), annotations: { ...o, [STATUS]: same ? (i[STATUS] as string) : aligned } } };
  } catch {
    return ours;
  }
}

export function ourOutcome(doc: JsonObject, config: LoadedConfig): Outcome {
  try {
    const r = injectObject(doc, 0, {}, config, {});
    return { decision: r.changed > 0 ? 'injected' : 'skipped', template: templateOf(r.value) };
  } catch (err) {
    return { decision: 'refused', error: err instanceof InjectorError ? `${err.code}: ${err.message}` : `CRASH ${String(err)}` };
  }
}

function istioOutcome(input: JsonObject, result: PeerResult): Outcome {
  if (!result.ok) return { decision: 'refused', error: result.error };
  const template = templateOf(result.output);
  return { decision: deepEqual(template, templateOf(input)) ? 'skipped' : 'injected', template };
}

type Verdict = 'identical' | 'deviation' | 'unexplained';

export interface Comparison extends DiffCase {
  verdict: Verdict;
  deviation?: Deviation;
}

export function compare(workload: JsonObject, native: boolean, istio: Outcome, ours: Outcome): Comparison {
  let diffs: string[] = [];
  if (istio.decision === 'injected' && ours.decision === 'injected' && istio.template !== undefined && ours.template !== undefined) {
    const aligned = alignStatus(ours.template, istio.template);
    diffs = differences(istio.template, aligned, '');
  }
  const c: DiffCase = { workload, native, istio, ours, diffs };
  if (istio.decision === ours.decision && diffs.length === 0) return { ...c, verdict: 'identical' };
  const deviation = INTENDED_DEVIATIONS.find((d) => d.matches(c));
  return deviation === undefined ? { ...c, verdict: 'unexplained' } : { ...c, verdict: 'deviation', deviation };
}

export interface DifferentialReport {
  runs: number;
  seed: number;
  identical: number;
  deviations: Map<string, number>;
  unexplained: Comparison[];
  decisions: Record<string, number>;
  istioctlInvocations: number;
  seconds: number;
}

/**
 * Generates `runs` workloads from `seed` and compares both injectors on each. Batches alternate
 * native sidecars on and off (the two layouts Istio produces). With `revision`, both inject as
 * that revision (istioctl `-r`, our `--revision`).
 */
export function runDifferential(
  peer: IstioPeer,
  runs: number,
  seed: number,
  batchSize = 100,
  onBatch?: (done: number) => void,
  revision?: string,
): DifferentialReport {
  const t0 = Date.now();
  const report: DifferentialReport = { runs, seed, identical: 0, deviations: new Map(), unexplained: [], decisions: {}, istioctlInvocations: 0, seconds: 0 };
  // A revision: istioctl kube-inject -r REVISION against our config as serve --revision loads it.
  const rev = revision === undefined ? {} : { revision };
  const configs = { true: peerConfig(peer, { nativeSidecars: true, ...rev }), false: peerConfig(peer, { nativeSidecars: false, ...rev }) };
  const stats = { invocations: 0 };
  const workloads = sampleWorkloads(runs, seed);
  for (let start = 0, batch = 0; start < runs; start += batchSize, batch++) {
    const docs = workloads.slice(start, start + batchSize);
    const native = batch % 2 === 0;
    const ours = docs.map((doc) => ourOutcome(doc, configs[String(native) as 'true' | 'false']));
    // Cost only, never the verdict: kube-inject stops at the first document it refuses, so the
    // ones we refuse run alone and the rest in one batch (bisected if Istio refuses one of them).
    const istio = new Array<PeerResult>(docs.length);
    const batched = docs.flatMap((_, i) => (ours[i].decision === 'refused' ? [] : [i]));
    kubeInject(
      peer,
      batched.map((i) => docs[i]),
      native,
      stats,
      revision,
    ).forEach((r, j) => (istio[batched[j]] = r));
    docs.forEach((doc, i) => {
      if (ours[i].decision === 'refused') istio[i] = kubeInject(peer, [doc], native, stats, revision)[0];
    });
    docs.forEach((doc, i) => {
      const c = compare(doc, native, istioOutcome(doc, istio[i]), ours[i]);
      const key = `${c.istio.decision}/${c.ours.decision}`;
      report.decisions[key] = (report.decisions[key] ?? 0) + 1;
      if (c.verdict === 'identical') report.identical++;
      else if (c.verdict === 'deviation') report.deviations.set(c.deviation!.id, (report.deviations.get(c.deviation!.id) ?? 0) + 1);
      else report.unexplained.push(c);
    });
    onBatch?.(Math.min(runs, start + batchSize));
  }
  report.istioctlInvocations = stats.invocations;
  report.seconds = (Date.now() - t0) / 1000;
  return report;
}

/** A readable account of one unexplained difference. */
export function describeComparison(c: Comparison): string {
  const lines = [
    `${String(c.workload.kind)}/${String((c.workload.metadata as JsonObject).name)} (native sidecars ${c.native ? 'on' : 'off'}): Istio ${c.istio.decision}, ours ${c.ours.decision}`,
  ];
  if (c.istio.error !== undefined) lines.push(`  Istio: ${c.istio.error.split('\n').slice(-2).join(' ')}`);
  if (c.ours.error !== undefined) lines.push(`  ours: ${c.ours.error.split('\n')[0]}`);
  for (const d of c.diffs.slice(0, 12)) lines.push(`  ${d}`);
  return lines.join('\n');
}
