import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeEvent } from '../kube/cluster-api.js';
import { EventRecorder } from './events.js';

const web = { kind: 'Deployment', name: 'web', namespace: 'shop', apiVersion: 'apps/v1', uid: 'u1' };

function recorder(options: { burst?: number; perMinute?: number; dedupeMs?: number } = {}) {
  const sent: { ns: string; event: KubeEvent }[] = [];
  const clock = { t: 1_000_000 };
  const r = new EventRecorder({ api: { createEvent: async (ns, event) => void sent.push({ ns, event }) }, instance: 'pod-a', now: () => clock.t, ...options });
  return { r, sent, clock };
}

describe('EventRecorder', () => {
  it('records an Event on the workload with its uid, reason, type and reporting instance', async () => {
    const { r, sent } = recorder();
    assert.equal(r.record(web, 'SidecarMissing', '2 of 2 pods have no sidecar'), true);
    await r.flush();
    assert.equal(sent.length, 1);
    const e = sent[0].event;
    assert.equal(sent[0].ns, 'shop');
    assert.deepEqual(e.involvedObject, { kind: 'Deployment', name: 'web', namespace: 'shop', uid: 'u1', apiVersion: 'apps/v1' });
    assert.deepEqual([e.reason, e.type, e.reportingInstance, e.source?.component], ['SidecarMissing', 'Warning', 'pod-a', 'sidecar-injector']);
    assert.match(e.metadata!.name!, /^web\.[0-9a-f]{10}$/);
  });

  it('deduplicates the same thing on the same object within the window (by key, so changing counts still dedupe)', async () => {
    const { r, sent, clock } = recorder({ dedupeMs: 60_000 });
    assert.equal(r.record(web, 'SidecarMissing', '1 of 2 pods', 'Warning', 'missing'), true);
    assert.equal(r.record(web, 'SidecarMissing', '2 of 2 pods', 'Warning', 'missing'), false);
    assert.equal(r.record(web, 'SidecarStale', 'image a -> b'), true, 'another reason is another Event');
    assert.equal(r.record({ ...web, name: 'api' }, 'SidecarMissing', '1 of 2 pods', 'Warning', 'missing'), true, 'another object');
    clock.t += 60_000;
    assert.equal(r.record(web, 'SidecarMissing', '2 of 2 pods', 'Warning', 'missing'), true, 'again after the window');
    await r.flush();
    assert.equal(sent.length, 4);
    assert.equal(r.stats.deduplicated, 1);
  });

  it('rate-limits: a burst, then the refill rate', async () => {
    const { r, clock } = recorder({ burst: 3, perMinute: 60 });
    const results = Array.from({ length: 10 }, (_, i) => r.record({ ...web, name: `w${i}` }, 'SidecarMissing', 'x'));
    assert.deepEqual(results.filter(Boolean).length, 3);
    assert.equal(r.stats.rateLimited, 7);
    clock.t += 2_000; // two tokens
    assert.deepEqual(
      [
        r.record({ ...web, name: 'y1' }, 'SidecarMissing', 'x'),
        r.record({ ...web, name: 'y2' }, 'SidecarMissing', 'x'),
        r.record({ ...web, name: 'y3' }, 'SidecarMissing', 'x'),
      ],
      [true, true, false],
    );
    await r.flush();
  });

  it('a failing API is counted and reported, never thrown; what failed is not held as sent', async () => {
    const errors: unknown[] = [];
    const r = new EventRecorder({ api: { createEvent: async () => Promise.reject(new Error('forbidden')) }, instance: 'x', onError: (e) => errors.push(e) });
    assert.equal(r.record(web, 'InjectionFailed', 'refused'), true);
    await r.flush();
    assert.equal(r.stats.failed, 1);
    assert.equal(errors.length, 1);
    // Never recorded, so not a duplicate: the next look (the apiserver back) may send it.
    assert.equal(r.record(web, 'InjectionFailed', 'refused'), true);
    await r.flush();
  });
});
