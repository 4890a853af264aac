/**
 * No pod can stall the webhook: every shape that used to block the one thread for seconds (tens
 * of thousands of containers, init containers, env entries, volumes, annotations, Istio's
 * init-containers-before-proxy list) is answered, under the per-request limits or within them,
 * while a normal admission sent alongside is still answered. The bound is generous (a guard
 * against quadratic work, which took 8 s at 40,000 containers), not a latency target.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultConfig } from '../profiles/index.js';
import { injectPod } from '../inject/pipeline.js';
import { DEFAULT_POD_LIMITS, parseLimit, type PodLimits } from '../inject/limits.js';
import { decodePatch, parseReview, postReview } from '../../test/support/https-client.js';
import { applyPatch } from '../patch/index.js';
import type { JsonPatchOperation } from '../patch/types.js';
import { podReview, samplePod } from '../../test/support/review-fixtures.js';
import { startHarness } from '../../test/support/webhook-harness.js';
import { templatesConfig } from '../../test/support/inject-fixtures.js';

const GENEROUS_MS = 5000;
type Pod = { metadata: { name: string; annotations: Record<string, string> }; spec: Record<string, unknown[]> & { containers: Record<string, unknown>[] } };

function base(): Pod {
  return { metadata: { name: 'big', annotations: {} }, spec: { containers: [{ name: 'app', image: 'app:1' }] } };
}
const named = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}`, image: 'x:1' }));

const SHAPES: Record<string, (n: number) => Pod> = {
  containers: (n) => ({ ...base(), spec: { containers: named('c', n) } }),
  'init containers': (n) => ({ ...base(), spec: { containers: named('c', 1), initContainers: named('i', n) } }),
  'env entries': (n) => {
    const p = base();
    p.spec.containers[0].env = Array.from({ length: n }, (_, i) => ({ name: `E${i}`, value: 'v' }));
    return p;
  },
  volumes: (n) => ({ ...base(), spec: { containers: named('c', 1), volumes: Array.from({ length: n }, (_, i) => ({ name: `v${i}`, emptyDir: {} })) } }),
  annotations: (n) => {
    const p = base();
    for (let i = 0; i < n; i++) p.metadata.annotations[`example.com/a${i}`] = 'x';
    return p;
  },
  'nativeSidecar + init-containers-before-proxy (n init containers)': (n) => {
    const p = SHAPES['init containers'](n);
    p.metadata.annotations['sidecar.istio.io/nativeSidecar'] = 'true';
    p.metadata.annotations['sidecar.istio.io/init-containers-before-proxy'] = p.spec.initContainers.map((c) => (c as { name: string }).name).join(',');
    return p;
  },
  'nativeSidecar + init-containers-before-proxy (n names listed)': (n) => {
    const p = SHAPES['init containers'](3);
    p.metadata.annotations['sidecar.istio.io/nativeSidecar'] = 'true';
    p.metadata.annotations['sidecar.istio.io/init-containers-before-proxy'] = Array.from({ length: n }, (_, i) => `i${i}`).join(',');
    return p;
  },
};

test('every large shape is answered (injected within the limits, refused past them) and a normal admission alongside is answered too', async (t) => {
  const h = await startHarness();
  t.after(() => h.server.shutdown());
  for (const [shape, make] of Object.entries(SHAPES)) {
    for (const n of [10_000, 40_000]) {
      const started = performance.now();
      const [big, normal] = await Promise.all([postReview(h.port, podReview(make(n))), postReview(h.port, podReview(samplePod()))]);
      const ms = performance.now() - started;
      assert.equal(big.status, 200, `${shape} ${n}: ${big.body.slice(0, 200)}`);
      const r = parseReview(big).response as { allowed: boolean; patch?: string; status?: { message: string } };
      if (!r.allowed) assert.match(r.status!.message, /SI_INJECT_LIMIT.*over the injector's limit of \d+ \(serve --limit \w+=N\)/, `${shape} ${n}`);
      else assert.ok(r.patch, `${shape} ${n}: within the limits, injected`);
      assert.equal(normal.status, 200);
      assert.ok(parseReview(normal).response.patch, `${shape} ${n}: the normal pod alongside is injected`);
      assert.ok(ms < GENEROUS_MS, `${shape} ${n}: answered in ${ms.toFixed(0)} ms`);
      t.diagnostic(`${shape} ${n}: ${r.allowed ? 'injected' : 'refused'} in ${ms.toFixed(0)} ms (not asserted below ${GENEROUS_MS})`);
    }
  }
});

test('past a limit: deny names the limit; allow admits the pod unmodified with a warning; a pod that would be skipped is skipped', async (t) => {
  const h = await startHarness({ onError: 'allow' });
  t.after(() => h.server.shutdown());
  const res = parseReview(await postReview(h.port, podReview(SHAPES.containers(1001)))).response as { allowed: boolean; patch?: string; warnings?: string[] };
  assert.equal(res.allowed, true);
  assert.equal(res.patch, undefined);
  assert.match((res.warnings ?? []).join('\n'), /sidecar not injected \(SI_INJECT_LIMIT\): the pod has 1001 containers, over the injector's limit of 1000/);
  const optedOut = SHAPES.containers(5000);
  optedOut.metadata.annotations['sidecar.istio.io/inject'] = 'false';
  const skipped = injectPod(optedOut, { namespace: 'shop', mode: 'webhook', limits: DEFAULT_POD_LIMITS }, defaultConfig());
  assert.equal(skipped.kind, 'skipped');
  assert.equal(
    injectPod(SHAPES.containers(1000), { namespace: 'shop', mode: 'webhook', limits: DEFAULT_POD_LIMITS }, defaultConfig()).kind,
    'injected',
    'at the limit is fine',
  );
});

test('limits are configurable and the patch size is bounded too', () => {
  const limits: PodLimits = { ...DEFAULT_POD_LIMITS };
  assert.equal(parseLimit('containers=5', limits), undefined);
  assert.equal(limits.containers, 5);
  assert.match(parseLimit('pods=5', limits) ?? '', /unknown limit "pods"; known: containers, initContainers/);
  assert.match(parseLimit('containers=0', limits) ?? '', /at least 1/);
  assert.match(parseLimit('containers', limits) ?? '', /NAME=N/);
  const ctx = { namespace: 'shop', mode: 'webhook' as const, limits: { ...DEFAULT_POD_LIMITS, patchBytes: 1000 } };
  assert.throws(() => injectPod(samplePod(), ctx, defaultConfig()), /SI_INJECT_LIMIT|bytes of JSON patch, over the injector's limit of 1000/);
});

test('without limits (the CLI) the ordering of 40,000 init containers named in the annotation is linear work and correct', () => {
  const pod = SHAPES['nativeSidecar + init-containers-before-proxy (n init containers)'](40_000);
  pod.metadata.annotations['sidecar.istio.io/init-containers-before-proxy'] = 'i39999,i7';
  const r = injectPod(pod, { namespace: 'shop', mode: 'webhook' }, defaultConfig());
  assert.equal(r.kind, 'injected');
  if (r.kind !== 'injected') return;
  const names = (r.pod.spec as { initContainers: { name: string }[] }).initContainers.map((c) => c.name);
  assert.deepEqual(names.slice(0, 5), ['proxy-init', 'i39999', 'i7', 'sidecar-proxy', 'i0']);
  assert.equal(names.length, 40_002);
});

test('pathological regexes on pod fields the user controls are answered at once (RE2: linear matching)', async (t) => {
  const patterns = ['^(a+)+$', '(a|a)*b', '(a*)*$', '^(a|aa)+$', '(.*a){12}', '^(\\w+\\s?)*$'];
  const config = templatesConfig({
    probe: [
      '{{- $v := index .ObjectMeta.Annotations "probe" }}',
      'metadata:',
      '  annotations:',
      ...patterns.map((p, i) => `    r${i}: {{ regexMatch ${JSON.stringify(p)} $v | quote }}`),
      `    all: {{ regexFindAll "(a+)+b" $v -1 | len | quote }}`,
      `    repl: {{ regexReplaceAll "(a|a)*c" $v "x" | len | quote }}`,
      'spec:',
      '  containers:',
      '  - {name: probe, image: "probe:1"}',
    ].join('\n'),
  });
  const h = await startHarness({ config: { builtin: () => config, load: async () => config } });
  t.after(() => h.server.shutdown());
  for (const input of ['a'.repeat(40) + '!', 'a'.repeat(5000) + '!', `${'ab '.repeat(3000)}!`]) {
    const pod = samplePod('', { annotations: { probe: input } });
    const started = performance.now();
    const [res, normal] = await Promise.all([postReview(h.port, podReview(pod)), postReview(h.port, podReview(samplePod()))]);
    const ms = performance.now() - started;
    const r = parseReview(res).response;
    assert.ok(r.patch, `${input.slice(0, 10)}…: injected: ${JSON.stringify(r).slice(0, 300)}`);
    const patched = applyPatch(pod, decodePatch(parseReview(res)) as JsonPatchOperation[]) as { metadata: { annotations: Record<string, string> } };
    const annotations = patched.metadata.annotations;
    // Go's answers: no run of a's reaches the end before "!"; `(a*)*$` matches empty at the end.
    assert.equal(annotations.r0, 'false');
    assert.equal(annotations.r2, 'true');
    assert.equal(annotations.r3, 'false');
    for (let i = 0; i < patterns.length; i++) assert.match(annotations[`r${i}`], /^(true|false)$/, patterns[i]);
    assert.ok(parseReview(normal).response.patch, 'the normal admission alongside is answered');
    assert.ok(ms < GENEROUS_MS, `answered in ${ms.toFixed(0)} ms`);
  }
});
