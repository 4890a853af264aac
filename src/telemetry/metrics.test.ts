import { test } from 'node:test';
import assert from 'node:assert/strict';
import { injectPod } from '../inject/index.js';
import { memoCounts } from '../inject/render-memo.js';
import { defaultConfig } from '../profiles/index.js';
import { createMetrics, LATENCY_BUCKETS } from './metrics.js';

test('series exist at zero before any traffic, so alerts and dashboards see them', async () => {
  const m = createMetrics({ processMetrics: false });
  const text = (await m.render()).body;
  for (const line of [
    'sidecar_injector_requests_total{code="200"} 0',
    'sidecar_injector_requests_total{code="413"} 0',
    'sidecar_injector_injections_total 0',
    'sidecar_injector_skips_total{reason="host-network"} 0',
    'sidecar_injector_failures_total{code="SI_INJECT_CONFLICT",action="denied"} 0',
    'sidecar_injector_reloads_total{kind="cert",result="failure"} 0',
    'sidecar_injector_in_flight_requests 0',
  ]) {
    assert.ok(text.includes(line), line);
  }
});

test('histogram buckets run from sub-millisecond to seconds and include the apiserver 5 ms and 25 ms bounds', () => {
  assert.ok(LATENCY_BUCKETS[0] < 0.001);
  assert.ok(LATENCY_BUCKETS.at(-1)! >= 10);
  assert.ok(LATENCY_BUCKETS.includes(0.005) && LATENCY_BUCKETS.includes(0.025));
});

test('counting: requests by code and outcome, skips by reason (unknown reasons fold into "other"), failures by code and action', async () => {
  const m = createMetrics({ processMetrics: false });
  m.request(200, 'injected', 0.002);
  m.request(200, 'skipped', 0.0004);
  m.request(408, 'invalid', 1);
  m.injected();
  m.skipped('host-network');
  m.skipped('some-future-reason');
  m.failed('SI_INJECT_CONFLICT', 'allowed');
  m.inFlight(1);
  m.certificateExpiry('serving', new Date(2_000_000_000_000));
  m.certificateExpiry('serving-ca', new Date(2_100_000_000_000));
  m.loaded('config');
  m.reload('cert', 'failure');
  m.caBundleInSync('inj', false);
  const text = (await m.render()).body;
  assert.match(text, /^sidecar_injector_requests_total\{code="200"\} 2$/m);
  assert.match(text, /^sidecar_injector_requests_total\{code="408"\} 1$/m);
  assert.match(text, /^sidecar_injector_request_duration_seconds_bucket\{le="0.0025",outcome="injected"\} 1$/m);
  assert.match(text, /^sidecar_injector_request_duration_seconds_bucket\{le="0.001",outcome="injected"\} 0$/m);
  assert.match(text, /^sidecar_injector_skips_total\{reason="other"\} 1$/m);
  assert.doesNotMatch(text, /some-future-reason/);
  assert.match(text, /^sidecar_injector_failures_total\{code="SI_INJECT_CONFLICT",action="allowed"\} 1$/m);
  assert.match(text, /^sidecar_injector_in_flight_requests 1$/m);
  assert.match(text, /^sidecar_injector_certificate_expiry_timestamp_seconds\{certificate="serving"\} 2000000000$/m);
  assert.match(text, /^sidecar_injector_certificate_expiry_timestamp_seconds\{certificate="serving-ca"\} 2100000000$/m);
  assert.match(text, /^sidecar_injector_last_reload_successful\{kind="config"\} 1$/m);
  assert.match(text, /^sidecar_injector_last_reload_successful\{kind="cert"\} 0$/m);
  assert.match(text, /^sidecar_injector_cabundle_in_sync\{webhook_configuration="inj"\} 0$/m);
});

test('each instance has a private registry (two servers in one process do not collide)', async () => {
  const a = createMetrics({ processMetrics: true });
  const b = createMetrics({ processMetrics: true });
  a.injected();
  assert.match((await a.render()).body, /^sidecar_injector_injections_total 1$/m);
  assert.match((await b.render()).body, /^sidecar_injector_injections_total 0$/m);
  assert.match((await a.render()).body, /^process_cpu_user_seconds_total/m);
});

test('render memo: hits, stored and skipped renders are exported as the core counted them', async () => {
  const m = createMetrics({ processMetrics: false });
  const config = defaultConfig();
  const pod = (node: string) => ({
    metadata: { generateName: 'agent-' },
    spec: {
      containers: [{ name: 'agent', image: 'agent:1' }],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] },
        },
      },
    },
  });
  const before = { ...memoCounts };
  for (const node of ['n1', 'n2', 'n3']) injectPod(pod(node), { namespace: 'ops', mode: 'webhook' }, config);
  assert.deepEqual([memoCounts.hits - before.hits, memoCounts.stored - before.stored], [2, 1]);
  const text = (await m.render()).body;
  for (const result of ['hit', 'stored', 'skipped', 'large'] as const) {
    const want = { hit: memoCounts.hits, stored: memoCounts.stored, skipped: memoCounts.skipped, large: memoCounts.large }[result];
    assert.ok(text.includes(`sidecar_injector_render_memo_total{result="${result}"} ${want}\n`), `${result}: ${want}`);
  }
});
