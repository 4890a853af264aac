/**
 * @module test/support/webhook-fuzz
 * The webhook fuzzer's targets, invariants and runner, shared by the bounded CI test
 * (test/reliability/fuzz-handler.test.ts) and the unbounded run (scripts/fuzz.ts). Each case is
 * an AdmissionReview body (a valid pod, or a review with hostile mutations) sent through the
 * real admission handler with the real core and a real config. Invariants:
 * - the handler never throws, and answers 200 or 400 (a 500 is a bug in our code);
 * - a 200 is a well-formed AdmissionReview in the request's version with the request's uid; a
 *   patch comes with `allowed: true` and `patchType: JSONPatch`; a denial carries a status;
 * - every patch base64-decodes to an RFC 6902 array that applies to the object as sent with
 *   fast-json-patch and with rfc6902, both giving the same pod;
 * - the injection makes no pod invalid: no problem in the patched pod that the input did not
 *   have (unique container and volume names, injected mounts resolve, the status annotation
 *   parses and names only what the pod has);
 * - re-submitting the patched pod yields no patch (idempotence);
 * - a replica (same pod, another uid) gets the same answer with its own uid;
 * - each case takes under a second, and Object.prototype stays clean.
 * Counterexamples are saved under test/reliability/fuzz-corpus/ and replayed as regression cases.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { createHandler, type AdmissionHandler } from '../../src/admission/handler.js';
import { defaultConfig, loadConfig } from '../../src/profiles/index.js';
import type { LoadedConfig } from '../../src/config/types.js';
import { injectPod } from '../../src/inject/pipeline.js';
import type { StatusKeyring } from '../../src/inject/status-mac.js';
import type { JsonPatchOperation } from '../../src/patch/types.js';
import { applyWithFastJsonPatch, applyWithRfc6902, hasInheritedNames } from './patch/appliers.js';
import { deepEqual } from '../../src/util/json.js';
import { hostileReviewArbitrary, validReviewArbitrary } from './pod-arbitraries.js';
import { injectedContainerNames, podProblems } from './pod-validity.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CORPUS_DIR = join(ROOT, 'test', 'reliability', 'fuzz-corpus');
const MAX_CASE_MS = 1000;

export interface FuzzTarget {
  name: string;
  config: LoadedConfig;
  handle: AdmissionHandler;
  injectKey: string;
  statusKey: string;
}

const FUZZ_STATUS_KEYS: StatusKeyring = { keys: [createHash('sha256').update('fuzz status key').digest()] };

function target(name: string, config: LoadedConfig): FuzzTarget {
  return {
    name,
    config,
    // Signed statuses, as `serve` runs: re-submissions must be recognised as our own.
    handle: createHandler({ inject: injectPod, getConfig: () => config, statusKeys: FUZZ_STATUS_KEYS }),
    injectKey: config.injectionKeys.inject,
    statusKey: config.injectionKeys.status,
  };
}

/** The built-in config, plus the example configs of the repository when present and loadable. */
export async function fuzzTargets(): Promise<FuzzTarget[]> {
  const out = [target('built-in', defaultConfig())];
  for (const example of ['log-shipper', 'nginx-sidecar']) {
    const file = join(ROOT, 'examples', example, 'config.yaml');
    if (!existsSync(file)) continue;
    try {
      out.push(target(example, await loadConfig(file)));
    } catch {
      // An example being edited may not load; the built-in config is always fuzzed.
    }
  }
  return out;
}

interface Reply {
  apiVersion?: string;
  kind?: string;
  code?: number;
  response?: { uid?: unknown; allowed?: unknown; patch?: unknown; patchType?: unknown; status?: { code?: unknown; message?: unknown } };
}

function call(t: FuzzTarget, body: Buffer): { status: number; body: string; ms: number } {
  const s = performance.now();
  const r = t.handle({ body, path: '/inject', query: 'timeout=10s', startedAt: performance.now() });
  return { status: r.status, body: r.body, ms: performance.now() - s };
}

/** How the cases were answered (to see that the fuzzer reaches the injection path). */
export interface FuzzStats {
  badRequest: number;
  denied: number;
  allowedNoPatch: number;
  patched: number;
  /** Cases that hit a known, reported core issue (KNOWN_ISSUES), by id. */
  known: Record<string, number>;
}

export const newStats = (): FuzzStats => ({ badRequest: 0, denied: 0, allowedNoPatch: 0, patched: 0, known: {} });

type Obj = Record<string, unknown>;

/**
 * Core bugs found by this fuzzer and reported but not fixed yet, each recognised narrowly by its
 * symptom, so a bounded CI run does not fail on them every time while they are open. Each one
 * has a stored regression case (a `todo` test until fixed). Remove the entry once fixed.
 */
export const KNOWN_ISSUES: { id: string; description: string; matches: (input: Obj, patched: Obj, problems: string[]) => boolean }[] = [
  // K1 (a pod whose only containers were folded into native sidecars got an empty
  // spec.containers) was fixed in e82e468; its regression case stays in the corpus.
];

/** Check every invariant for one body; throws an AssertionError naming the broken one. */
export function checkCase(t: FuzzTarget, body: Buffer, stats: FuzzStats = newStats(), options: { strict?: boolean } = {}): void {
  const first = call(t, body);
  assert.ok(first.ms < MAX_CASE_MS, `the handler took ${first.ms.toFixed(0)} ms (limit ${MAX_CASE_MS})`);
  assert.ok(first.status === 200 || first.status === 400, `HTTP ${first.status} (only 200 or 400 are expected): ${first.body.slice(0, 500)}`);
  const out = JSON.parse(first.body) as Reply;
  if (first.status === 400) {
    assert.equal(out.kind, 'Status', 'a 400 carries a metav1.Status');
    assert.equal(out.code, 400);
    stats.badRequest++;
    return;
  }
  const sent = JSON.parse(body.toString('utf8')) as { apiVersion: string; request: { uid: string; namespace?: string; object: unknown } };
  // Same pod under another uid (a replica): the same answer but the uid.
  const replicaUid = `${sent.request.uid}~r`;
  const replica = call(t, Buffer.from(JSON.stringify({ ...sent, request: { ...sent.request, uid: replicaUid } })));
  const expectedReplica = JSON.parse(first.body) as Reply;
  if (expectedReplica.response) expectedReplica.response.uid = replicaUid;
  assert.equal(replica.status, 200, 'the replica is answered');
  assert.deepEqual(JSON.parse(replica.body), expectedReplica, 'a replica (same pod, new uid) gets the same answer with its own uid');
  assert.equal(out.apiVersion, sent.apiVersion, 'the answer is in the request version');
  assert.equal(out.kind, 'AdmissionReview');
  const res = out.response;
  assert.ok(res !== undefined, 'a response');
  assert.equal(res.uid, sent.request.uid, 'the response echoes the uid');
  assert.equal(typeof res.allowed, 'boolean', 'allowed is a boolean');
  assert.equal(res.patch === undefined, res.patchType === undefined, 'patch and patchType come together');
  if (res.allowed === false) {
    assert.equal(res.patch, undefined, 'a denial carries no patch');
    assert.equal(typeof res.status?.code, 'number', 'a denial carries a status code');
    assert.equal(typeof res.status?.message, 'string', 'a denial carries a message');
    assert.ok(
      !String(res.status?.message).includes('(SI_INTERNAL)'),
      `a denial is never an internal error (a bug): ${String(res.status?.message).slice(0, 300)}`,
    );
    stats.denied++;
    return;
  }
  if (res.patch === undefined) {
    stats.allowedNoPatch++;
    return;
  }
  stats.patched++;
  assert.equal(res.patchType, 'JSONPatch');
  assert.equal(typeof res.patch, 'string');
  const ops = JSON.parse(Buffer.from(res.patch as string, 'base64').toString('utf8')) as JsonPatchOperation[];
  assert.ok(Array.isArray(ops) && ops.length > 0, 'the patch is a non-empty JSON array');
  const original = sent.request.object;
  const patched = applyWithFastJsonPatch(original, ops);
  if (!hasInheritedNames(original) && !hasInheritedNames(patched)) {
    // rfc6902 mishandles keys named like Object.prototype members (see test/support/patch/appliers).
    assert.ok(deepEqual(applyWithRfc6902(original, ops), patched), 'fast-json-patch and rfc6902 give the same pod');
  }
  // The injection must not make the pod invalid; what was already wrong in the input (hostile
  // cases) is the apiserver's to refuse, with or without a sidecar.
  const before = new Set(podProblems(original));
  const problems = podProblems(patched, { statusKey: t.statusKey, checkMountsOf: injectedContainerNames(patched, t.statusKey) }).filter((p) => !before.has(p));
  const known = problems.length > 0 && options.strict !== true ? KNOWN_ISSUES.find((k) => k.matches(original as Obj, patched as Obj, problems)) : undefined;
  if (known !== undefined) {
    stats.known[known.id] = (stats.known[known.id] ?? 0) + 1;
    return;
  }
  assert.deepEqual(problems, [], `the patched pod is valid; ops ${JSON.stringify(ops).slice(0, 2000)}`);

  const again = Buffer.from(JSON.stringify({ ...sent, request: { ...sent.request, uid: `${sent.request.uid}-again`, object: patched } }));
  const second = call(t, again);
  assert.equal(second.status, 200, `re-submission answered ${second.status}: ${second.body.slice(0, 300)}`);
  const out2 = JSON.parse(second.body) as Reply;
  assert.equal(out2.response?.allowed, true, `the injected pod is allowed again: ${JSON.stringify(out2.response?.status)}`);
  const extra = out2.response?.patch === undefined ? [] : (JSON.parse(Buffer.from(String(out2.response.patch), 'base64').toString('utf8')) as unknown[]);
  assert.deepEqual(extra, [], 'injecting an injected pod changes nothing (idempotence)');
}

/** One generated case: which target, and the body bytes. */
export interface FuzzCase {
  target: number;
  body: string;
}

/** A target, then a review built with that target's opt-in key: valid (3 in 5) or hostile. */
function caseArbitrary(targets: FuzzTarget[]): fc.Arbitrary<FuzzCase> {
  return fc.nat({ max: targets.length - 1 }).chain((target) => {
    const options = { injectKeys: [targets[target].injectKey] };
    // A uid that is a piece of the body itself attacks the cache key (body minus the uid's bytes).
    const substringUid = validReviewArbitrary(options).chain((r) => {
      const text = JSON.stringify(r);
      return fc
        .tuple(fc.nat(text.length - 1), fc.integer({ min: 1, max: 16 }))
        .map(([at, len]) => ({ ...r, request: { ...(r.request as Obj), uid: text.slice(at, at + len) } }));
    });
    return fc
      .oneof(
        { weight: 3, arbitrary: validReviewArbitrary(options) },
        { weight: 2, arbitrary: hostileReviewArbitrary(options) },
        { weight: 1, arbitrary: substringUid },
      )
      .map((r) => ({ target, body: JSON.stringify(r) }));
  });
}

export function fuzzProperty(targets: FuzzTarget[], stats: FuzzStats = newStats()): fc.IPropertyWithHooks<[FuzzCase]> {
  return fc.property(caseArbitrary(targets), (c) => {
    checkCase(targets[c.target], Buffer.from(c.body), stats);
    assert.deepEqual(
      Object.getOwnPropertyNames(Object.prototype).filter((k) => !BASE_PROTO.has(k)),
      [],
      'Object.prototype was not polluted',
    );
  });
}

const BASE_PROTO = new Set(Object.getOwnPropertyNames(Object.prototype));

export interface StoredCase {
  target: string;
  body: string;
  /** How it was found (seed, path, message). */
  found: string;
  /** The KNOWN_ISSUES id while the bug is open: the replay is a `todo` test until then. */
  known?: string;
}

/** Save a counterexample for replay; returns its file. */
export function saveCounterexample(targets: FuzzTarget[], c: FuzzCase, note: string): string {
  mkdirSync(CORPUS_DIR, { recursive: true });
  const hash = createHash('sha256').update(c.body).digest('hex').slice(0, 16);
  const file = join(CORPUS_DIR, `${hash}.json`);
  const stored: StoredCase = { target: targets[c.target]?.name ?? 'built-in', body: c.body, found: note };
  writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`);
  return file;
}

export function loadCorpus(): { file: string; stored: StoredCase }[] {
  if (!existsSync(CORPUS_DIR)) return [];
  return readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ file: f, stored: JSON.parse(readFileSync(join(CORPUS_DIR, f), 'utf8')) as StoredCase }));
}
