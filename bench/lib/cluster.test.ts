/**
 * The pod-create benchmark's arithmetic and set-up (bench/lib/prom.ts, cluster-*.ts): histograms
 * read from a Prometheus exposition as the apiserver writes it (summed over label sets, apart by
 * webhook), differences of two scrapes, exact means and PromQL's interpolated quantiles; the
 * per-pod and above-the-floor figures; each mode's configuration narrowed to its namespaces and
 * renamed, so the apiserver's per-webhook metrics keep modes apart; the pod each mode sends; the
 * variants' syntax; and the Go floor webhook, when Go is installed, answering over TLS.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { add, counters, delta, histograms, mean, quantile } from './prom.js';
import { aboveFloorMs, overIstio, perPodMs } from './cluster-report.js';
import { emptyResult, readOurLog, type ModeResult } from './cluster-run.js';
import { benchPodFor, expectSidecar, parseVariant, withStatusOf } from './cluster-modes.js';
import { floorConfig, forMode, MODE_LABEL } from './cluster-setup.js';
import { REPO_ROOT, spawnServer } from '../../test/support/server-process.js';
import { sharedDevCertificate } from '../../test/support/webhook-harness.js';

const APISERVER = `# HELP apiserver_admission_webhook_admission_duration_seconds [STABLE] Admission webhook latency
# TYPE apiserver_admission_webhook_admission_duration_seconds histogram
apiserver_admission_webhook_admission_duration_seconds_bucket{name="a.x.io",operation="CREATE",rejected="false",type="admit",le="0.005"} 8
apiserver_admission_webhook_admission_duration_seconds_bucket{name="a.x.io",operation="CREATE",rejected="false",type="admit",le="0.025"} 10
apiserver_admission_webhook_admission_duration_seconds_bucket{name="a.x.io",operation="CREATE",rejected="false",type="admit",le="+Inf"} 10
apiserver_admission_webhook_admission_duration_seconds_sum{name="a.x.io",operation="CREATE",rejected="false",type="admit"} 0.04
apiserver_admission_webhook_admission_duration_seconds_count{name="a.x.io",operation="CREATE",rejected="false",type="admit"} 10
apiserver_admission_webhook_admission_duration_seconds_bucket{name="a.x.io",operation="CREATE",rejected="true",type="admit",le="0.005"} 1
apiserver_admission_webhook_admission_duration_seconds_bucket{name="a.x.io",operation="CREATE",rejected="true",type="admit",le="0.025"} 2
apiserver_admission_webhook_admission_duration_seconds_bucket{name="a.x.io",operation="CREATE",rejected="true",type="admit",le="+Inf"} 2
apiserver_admission_webhook_admission_duration_seconds_sum{name="a.x.io",operation="CREATE",rejected="true",type="admit"} 0.02
apiserver_admission_webhook_admission_duration_seconds_count{name="a.x.io",operation="CREATE",rejected="true",type="admit"} 2
apiserver_admission_webhook_admission_duration_seconds_bucket{name="b.x.io",operation="CREATE",rejected="false",type="admit",le="0.005"} 3
apiserver_admission_webhook_admission_duration_seconds_bucket{name="b.x.io",operation="CREATE",rejected="false",type="admit",le="0.025"} 4
apiserver_admission_webhook_admission_duration_seconds_bucket{name="b.x.io",operation="CREATE",rejected="false",type="admit",le="+Inf"} 4
apiserver_admission_webhook_admission_duration_seconds_sum{name="b.x.io",operation="CREATE",rejected="false",type="admit"} 0.03
apiserver_admission_webhook_admission_duration_seconds_count{name="b.x.io",operation="CREATE",rejected="false",type="admit"} 4
apiserver_admission_webhook_admission_duration_seconds_other{name="a.x.io"} 99
apiserver_admission_webhook_request_total{name="a.x.io",code="200"} 12
`;

test('histograms per webhook, summed over the other labels; other series and metrics ignored', () => {
  const h = histograms(APISERVER, 'apiserver_admission_webhook_admission_duration_seconds', 'name');
  assert.deepEqual([...h.keys()].sort(), ['a.x.io', 'b.x.io']);
  const a = h.get('a.x.io')!;
  assert.deepEqual(a, {
    buckets: [
      { le: 0.005, count: 9 },
      { le: 0.025, count: 12 },
      { le: Infinity, count: 12 },
    ],
    sum: 0.06,
    count: 12,
  });
  assert.equal(mean(a), 0.005);
  assert.deepEqual(
    [...counters(APISERVER, 'apiserver_admission_webhook_request_total', 'name')],
    [['a.x.io', 12]],
    'a counter by label, other metrics with the same prefix left out',
  );
});

test('a measurement is the difference of two scrapes; an absent "before" counts from zero; add joins blocks', () => {
  const before = histograms(APISERVER, 'apiserver_admission_webhook_admission_duration_seconds', 'name').get('b.x.io')!;
  const after = histograms(
    APISERVER.replaceAll('} 4\n', '} 14\n').replace('} 0.03\n', '} 0.13\n'),
    'apiserver_admission_webhook_admission_duration_seconds',
    'name',
  ).get('b.x.io')!;
  const d = delta(after, before);
  assert.equal(d.count, 10);
  assert.ok(Math.abs(d.sum - 0.1) < 1e-12);
  assert.deepEqual(
    d.buckets.map((b) => b.count),
    [0, 10, 10],
  );
  assert.deepEqual(delta(after, undefined), after);
  assert.equal(delta(undefined, before).count, 0);
  const both = add(d, d);
  assert.equal(both.count, 20);
  assert.deepEqual(
    both.buckets.map((b) => b.count),
    [0, 20, 20],
  );
});

test('quantiles interpolate inside the bucket (PromQL histogram_quantile): from 0 in the first, the last finite bound in +Inf', () => {
  const h = {
    buckets: [
      { le: 0.001, count: 50 },
      { le: 0.002, count: 100 },
      { le: Infinity, count: 100 },
    ],
    sum: 0.1,
    count: 100,
  };
  assert.equal(quantile(h, 0.25), 0.0005);
  assert.ok(Math.abs(quantile(h, 0.75) - 0.0015) < 1e-12);
  const tail = {
    buckets: [
      { le: 0.005, count: 1 },
      { le: Infinity, count: 4 },
    ],
    sum: 1,
    count: 4,
  };
  assert.equal(quantile(tail, 0.99), 0.005);
  assert.ok(Number.isNaN(quantile({ buckets: [], sum: 0, count: 0 }, 0.5)));
});

function result(mode: string, pods: number, sumS: number, calls = pods): ModeResult {
  return { ...emptyResult(mode, 5), pods, apiserver: { buckets: [], sum: sumS, count: calls } };
}

test('per pod, above the floor, over Istio: all calls of a pod count; failed pods are not pods', () => {
  const rows = [result('floor', 100, 0.1), result('istio', 100, 0.5), { ...result('ours', 101, 0.6, 200), failed: 1 }];
  assert.equal(perPodMs(rows[2]), 6);
  assert.ok(Math.abs(aboveFloorMs(rows, 'ours') - 5) < 1e-9);
  assert.ok(Math.abs(overIstio(rows, 'ours') - 5 / 4) < 1e-9);
  assert.ok(Number.isNaN(aboveFloorMs([rows[1]], 'istio')), 'no floor, no figure');
});

test('our log lines: durationMs by decision, only after the offset, a torn last line skipped', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cluster-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'ours.log');
  const early = `${JSON.stringify({ msg: 'admission', decision: 'injected', durationMs: 9 })}\n`;
  writeFileSync(
    file,
    `${early}${JSON.stringify({ msg: 'admission', decision: 'injected', durationMs: 1.5 })}\n${JSON.stringify({ msg: 'config loaded' })}\n${JSON.stringify({ msg: 'admission', decision: 'skipped', durationMs: 0.2 })}\n{"msg":"admission","dec`,
  );
  assert.deepEqual(readOurLog(file, Buffer.byteLength(early)), { injected: [1.5], skipped: [0.2] });
});

test("a mode's configuration: its webhooks renamed with the mode, each namespace selector also requires si-bench=<mode>, URL and CA set", () => {
  const config = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'istio-sidecar-injector', labels: { x: 'y' } },
    webhooks: [
      {
        name: 'namespace.sidecar-injector.istio.io',
        clientConfig: { service: { name: 'istiod', path: '/inject' } },
        namespaceSelector: { matchExpressions: [{ key: 'istio-injection', operator: 'In', values: ['enabled'] }] },
      },
      { name: 'object.sidecar-injector.istio.io', clientConfig: { service: { name: 'istiod' } } },
    ],
  };
  const out = forMode(config, 'istio', 'https://127.0.0.1:1/inject', 'Q0E=');
  assert.equal(out.metadata.name, 'si-bench-istio');
  assert.deepEqual(
    out.webhooks.map((w: { name: string }) => w.name),
    ['istio.namespace.sidecar-injector.istio.io', 'istio.object.sidecar-injector.istio.io'],
  );
  assert.deepEqual(out.webhooks[0].namespaceSelector.matchExpressions, [
    { key: 'istio-injection', operator: 'In', values: ['enabled'] },
    { key: MODE_LABEL, operator: 'In', values: ['istio'] },
  ]);
  assert.deepEqual(out.webhooks[1].namespaceSelector, { matchExpressions: [{ key: MODE_LABEL, operator: 'In', values: ['istio'] }] });
  assert.deepEqual(out.webhooks[0].clientConfig, { url: 'https://127.0.0.1:1/inject', caBundle: 'Q0E=' });
  assert.equal(config.webhooks[0].name, 'namespace.sidecar-injector.istio.io', 'the input is not changed');
  const floor = floorConfig('floor', 'https://127.0.0.1:2/inject', 'Q0E=');
  assert.equal(floor.webhooks[0].reinvocationPolicy, 'Never');
  assert.deepEqual(floor.webhooks[0].namespaceSelector, { matchExpressions: [{ key: MODE_LABEL, operator: 'In', values: ['floor'] }] });
});

test("the pod: a Deployment's, without what the apiserver adds itself; opted out by annotation (the webhook is still called)", () => {
  const pod = benchPodFor('F1');
  assert.equal(pod.metadata.namespace, undefined);
  assert.equal(pod.metadata.managedFields, undefined);
  assert.equal(pod.metadata.ownerReferences, undefined);
  assert.equal(pod.spec.serviceAccountName, 'default');
  assert.ok(!JSON.stringify(pod).includes('kube-api-access'));
  assert.equal(pod.metadata.labels['sidecar.istio.io/inject'], 'true');
  const out = benchPodFor('F1', true);
  assert.equal(out.metadata.labels['sidecar.istio.io/inject'], undefined);
  assert.equal(out.metadata.annotations['sidecar.istio.io/inject'], 'false');
  assert.equal(benchPodFor('F2').spec.containers.length, 20);
  assert.equal(expectSidecar(true)({ spec: { initContainers: [{ name: 'istio-proxy' }], containers: [] } }), undefined);
  assert.match(expectSidecar(false)({ spec: { containers: [{ name: 'istio-proxy' }] } }) ?? '', /should have none/);
});

test('variants: NAME=FLAGS, NAME@DIR, both; anything else is refused with the syntax', () => {
  assert.deepEqual(parseVariant('nowarm=--warmup 0'), { name: 'ours-nowarm', flags: ['--warmup', '0'] });
  assert.deepEqual(parseVariant('old@/tmp/checkout'), { name: 'ours-old', dir: '/tmp/checkout', flags: [] });
  assert.deepEqual(parseVariant('old@/tmp/c=--warmup 0'), { name: 'ours-old', dir: '/tmp/c', flags: ['--warmup', '0'] });
  for (const bad of ['', 'Bad=--x', 'plain']) assert.throws(() => parseVariant(bad), /NAME\[@DIR\]\[=FLAGS\]|give another checkout/);
});

const hasGo = spawnSync('go', ['version']).status === 0;

test("the Go floor webhook: answers allowed with the uid, or the fixed patch with the review's own token volume name", {
  skip: hasGo ? false : 'Go is not installed',
}, async (t) => {
  const built = spawnSync('bash', [join(REPO_ROOT, 'e2e/build/floor.sh')], { encoding: 'utf8' });
  assert.equal(built.status, 0, built.stderr);
  const binary = built.stdout.trim().split('\n').pop()!;
  const dir = mkdtempSync(join(tmpdir(), 'floor-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const dev = await sharedDevCertificate();
  writeFileSync(join(dir, 'tls.crt'), dev.certPem);
  writeFileSync(join(dir, 'tls.key'), dev.keyPem);
  writeFileSync(join(dir, 'patch.json'), JSON.stringify([{ op: 'add', path: '/spec/volumes/0/name', value: 'KUBE_API_ACCESS' }]));
  const review = JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'u-1', object: { spec: { volumes: [{ name: 'kube-api-access-q7x2z' }] } } },
  });
  for (const [extra, want] of [
    [[], undefined],
    [['-patch', join(dir, 'patch.json')], [{ op: 'add', path: '/spec/volumes/0/name', value: 'kube-api-access-q7x2z' }]],
  ] as const) {
    const s = spawnServer({ command: binary, args: ['-port', '0', '-cert', join(dir, 'tls.crt'), '-key', join(dir, 'tls.key'), ...extra] });
    try {
      let port = 0;
      for (let i = 0; i < 100 && port === 0; i++) {
        port = Number(/listening on https:\/\/[^:]+:(\d+)/.exec(s.output())?.[1] ?? 0);
        if (port === 0) await new Promise((r) => setTimeout(r, 50));
      }
      const body = await new Promise<string>((resolve, reject) => {
        const r = request(
          { host: '127.0.0.1', port, path: '/inject', method: 'POST', ca: dev.caPem, servername: 'localhost', headers: { 'Content-Type': 'application/json' } },
          (res) => {
            let text = '';
            res
              .setEncoding('utf8')
              .on('data', (c: string) => (text += c))
              .on('end', () => resolve(text));
          },
        );
        r.on('error', reject);
        r.end(review);
      });
      const response = (JSON.parse(body) as { response: { uid: string; allowed: boolean; patch?: string; patchType?: string } }).response;
      assert.equal(response.uid, 'u-1');
      assert.equal(response.allowed, true);
      assert.deepEqual(response.patch === undefined ? undefined : JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')), want);
      if (want !== undefined) assert.equal(response.patchType, 'JSONPatch');
    } finally {
      await s.stop();
    }
  }
});

test("our patch with Istio's status: only the status operation's value changes; a patch without one is refused", () => {
  const status = '/metadata/annotations/sidecar.istio.io~1status';
  const ours = [
    { op: 'add', path: '/metadata/labels/a', value: 'x' },
    { op: 'add', path: status, value: '{"long":"ours"}' },
    { op: 'add', path: '/spec/volumes/0', value: { name: 'v' } },
  ];
  const istio = [
    { op: 'add', path: '/spec/volumes/-', value: { name: 'w' } },
    { op: 'add', path: status, value: '{"short":1}' },
  ];
  assert.deepEqual(withStatusOf(ours, istio), [ours[0], { op: 'add', path: status, value: '{"short":1}' }, ours[2]]);
  assert.equal(ours[1].value, '{"long":"ours"}', 'the input is not changed');
  assert.throws(() => withStatusOf(ours, istio.slice(0, 1)), /both patches must add/);
});
