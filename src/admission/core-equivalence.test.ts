/**
 * The webhook with the real core and the built-in config: every patch it returns applies with
 * two independent RFC 6902 libraries and yields exactly what the core gives when called
 * directly and what `sidecar-injector inject -f` prints for the same pod, plus the one thing
 * only a webhook does: the service-account token mounted into the injected containers, as the
 * apiserver's ServiceAccount admission would (stages.ts mountToken); a second pass over the
 * injected pod adds nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { defaultConfig } from '../profiles/index.js';
import { injectPod } from '../inject/pipeline.js';
import { TOKEN_MOUNT_PATH } from '../inject/stages.js';
import type { JsonPatchOperation } from '../patch/types.js';
import { runCli } from '../cli/command-tree.js';
import { memoryIO } from '../../test/support/memory-io.js';
import { startHarness } from '../../test/support/webhook-harness.js';
import { decodePatch, parseReview, postReview } from '../../test/support/https-client.js';
import { podReview, samplePod } from '../../test/support/review-fixtures.js';
import { applyWithFastJsonPatch, applyWithRfc6902 } from '../../test/support/patch/appliers.js';
import { cloneJson } from '../util/json.js';

type Pod = Record<string, unknown> & { metadata: Record<string, unknown>; spec: Record<string, unknown> };

function withoutManagedFields(pod: unknown): Pod {
  const copy = cloneJson(pod) as Pod;
  delete copy.metadata.managedFields;
  return copy;
}

const STATUS = 'sidecar.istio.io/status';

/**
 * The webhook signs the status it writes (its last member, `"mac"`); the core called without
 * keys and `inject -f` don't. Checks the signature is there and returns the pod without it, so
 * everything else is compared exactly.
 */
function unsigned(pod: Pod): Pod {
  const annotations = pod.metadata.annotations as Record<string, string>;
  const m = /,"mac":"[A-Za-z0-9_-]{22}"\}$/.exec(annotations[STATUS]);
  assert.ok(m, `the webhook's status is signed: ${annotations[STATUS]}`);
  annotations[STATUS] = `${annotations[STATUS].slice(0, m.index)}}`;
  return pod;
}

function pods(): [string, Pod][] {
  const nullParents = samplePod() as Pod;
  nullParents.metadata.annotations = null;
  nullParents.spec.initContainers = null;
  const generated = samplePod() as Pod;
  delete generated.metadata.name;
  const native = samplePod() as Pod;
  native.spec.initContainers = [{ name: 'native', image: 'n:1', restartPolicy: 'Always' }];
  const manyEnv = samplePod() as Pod;
  (manyEnv.spec.containers as { env?: unknown[] }[])[0].env = Array.from({ length: 2000 }, (_, i) => ({ name: `VAR_${i}`, value: String(i) }));
  const escaped = samplePod() as Pod;
  escaped.metadata.annotations = { 'example.com/a~b': 'x', 'team/owner': 'y' };
  return [
    ['sample', samplePod() as Pod],
    ['null annotations and initContainers', nullParents],
    ['generateName only', generated],
    ['native sidecar present', native],
    ['2,000 env vars', manyEnv],
    ['keys with ~ and /', escaped],
  ];
}

/**
 * `inject -f`'s pod with the token mount the webhook adds: in every injected container (named by
 * the status) without a mount at the token path, when the pod has a kube-api-access volume.
 */
function withTokenMounts(printed: unknown): unknown {
  const pod = cloneJson(printed) as Pod;
  const token = ((pod.spec.volumes ?? []) as { name: string }[]).find((v) => v.name.startsWith('kube-api-access-'));
  if (token === undefined) return pod;
  const status = JSON.parse((pod.metadata.annotations as Record<string, string>)[STATUS]) as { containers: string[] | null; initContainers: string[] | null };
  const names = new Set([...(status.containers ?? []), ...(status.initContainers ?? [])]);
  for (const list of [pod.spec.initContainers, pod.spec.containers] as ({ name: string; volumeMounts?: { mountPath: string }[] }[] | undefined)[]) {
    for (const c of list ?? []) {
      if (!names.has(c.name) || (c.volumeMounts ?? []).some((m) => m.mountPath === TOKEN_MOUNT_PATH)) continue;
      c.volumeMounts = [...(c.volumeMounts ?? []), { name: token.name, readOnly: true, mountPath: TOKEN_MOUNT_PATH } as { mountPath: string }];
    }
  }
  return pod;
}

/** `sidecar-injector inject -f` on one pod, parsed back. */
async function cliInject(dir: string, pod: Pod, namespace: string): Promise<unknown> {
  const file = join(dir, `pod-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify(pod));
  const io = memoryIO();
  const code = await runCli(['inject', '-f', file, '-n', namespace, '-q'], io);
  assert.equal(code, 0, io.err);
  return parseYaml(io.out) as unknown;
}

test('real core: webhook patch == core called directly == `inject -f`, in v1 and v1beta1, and idempotent', async (t) => {
  const config = defaultConfig();
  const h = await startHarness({ config: { builtin: () => config, load: async () => config, describe: (c) => ({ hash: c.hash }) } });
  const dir = await mkdtemp(join(tmpdir(), 'equivalence-'));
  t.after(async () => {
    await h.server.shutdown();
    await rm(dir, { recursive: true, force: true });
  });
  for (const [name, pod] of pods()) {
    for (const apiVersion of ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1']) {
      const res = await postReview(h.port, podReview(pod, { apiVersion, namespace: 'shop' }));
      assert.equal(res.status, 200, `${name}: ${res.body.slice(0, 300)}`);
      const review = parseReview(res);
      assert.equal(review.apiVersion, apiVersion);
      assert.ok(review.response.patch, `${name}: injected`);
      const ops = decodePatch(review) as JsonPatchOperation[];
      const viaFjp = applyWithFastJsonPatch(pod, ops);
      assert.deepEqual(applyWithRfc6902(pod, ops), viaFjp, `${name}: both libraries agree`);
      const webhook = unsigned(withoutManagedFields(viaFjp));

      const direct = injectPod(withoutManagedFields(pod), { namespace: 'shop', mode: 'webhook' }, config);
      assert.equal(direct.kind, 'injected');
      if (direct.kind === 'injected') assert.deepEqual(webhook, direct.pod, `${name}: webhook vs core`);
      if (apiVersion === 'admission.k8s.io/v1') {
        assert.deepEqual(webhook, withTokenMounts(await cliInject(dir, withoutManagedFields(pod), 'shop')), `${name}: webhook vs inject -f`);
        const again = parseReview(await postReview(h.port, podReview(viaFjp, { namespace: 'shop' })));
        assert.equal(again.response.patch, undefined, `${name}: a second pass adds nothing`);
        assert.equal(again.response.allowed, true);
      }
    }
  }
});
