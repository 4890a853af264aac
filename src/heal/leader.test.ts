/**
 * LeaderElector against an in-memory Lease store with the apiserver's optimistic concurrency
 * (resourceVersion; create conflicts), with a clock the test moves.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClusterError } from '../errors.js';
import type { Lease, LeaseApi } from '../kube/cluster-api.js';
import { LeaderElector } from './leader.js';

function store() {
  let lease: Lease | undefined;
  let rv = 0;
  const conflict = () => new ClusterError('SI_CLUSTER_REQUEST', 'conflict', { details: { status: 409 } });
  const down = new Set<string>();
  const api: LeaseApi = {
    async get() {
      return lease === undefined ? undefined : structuredClone(lease);
    },
    async create(_ns, l) {
      if (lease !== undefined) throw conflict();
      lease = { ...structuredClone(l), metadata: { ...l.metadata, resourceVersion: String(++rv) } };
      return lease;
    },
    async replace(_ns, l) {
      if (down.has(l.spec?.holderIdentity ?? '')) throw new ClusterError('SI_CLUSTER_REQUEST', 'unreachable');
      if (l.metadata?.resourceVersion !== lease?.metadata?.resourceVersion) throw conflict();
      lease = { ...structuredClone(l), metadata: { ...l.metadata, resourceVersion: String(++rv) } };
      return lease;
    },
  };
  return { api, lease: () => lease, down };
}

const tick = (ms = 30) => new Promise((r) => setTimeout(r, ms));

function elector(api: LeaseApi, identity: string, clock: { t: number }, events: string[]) {
  return new LeaderElector({
    leases: api,
    namespace: 'ns',
    name: 'lease',
    identity,
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 5,
    now: () => new Date(clock.t),
    onStartedLeading: () => events.push(`${identity}+`),
    onStoppedLeading: () => events.push(`${identity}-`),
  });
}

describe('LeaderElector', () => {
  it('exactly one of two candidates leads; stopping it releases the Lease and the other takes over at once', async (t) => {
    const s = store();
    const clock = { t: Date.parse('2026-11-25T12:00:00Z') };
    const events: string[] = [];
    const a = elector(s.api, 'a', clock, events);
    const b = elector(s.api, 'b', clock, events);
    // Stopped even when an assertion fails: their timers would keep the test process alive.
    t.after(async () => {
      await a.stop();
      await b.stop();
    });
    a.start();
    b.start();
    for (let i = 0; i < 1000 && !a.leading && !b.leading; i++) await tick(5);
    for (let i = 0; i < 20; i++) await tick(5);
    assert.equal([a.leading, b.leading].filter(Boolean).length, 1, 'one leader');
    const [leader, other] = a.leading ? [a, b] : [b, a];
    const holder = s.lease()!.spec!.holderIdentity;
    assert.equal(holder, a.leading ? 'a' : 'b');
    assert.equal(s.lease()!.spec!.leaseTransitions, 0);
    await leader.stop();
    assert.equal(s.lease()!.spec!.holderIdentity, '', 'released');
    for (let i = 0; i < 1000 && !other.leading; i++) await tick(5);
    assert.equal(other.leading, true, 'took over without waiting for the lease to expire');
    assert.equal(s.lease()!.spec!.holderIdentity, a.leading ? 'a' : 'b');
    assert.equal(s.lease()!.spec!.leaseTransitions, 1);
    await other.stop();
    assert.deepEqual(events.length, 4);
  });

  it('a holder that stops renewing (crashed, partitioned) loses the Lease after its duration, and steps down itself after the renew deadline', async (t) => {
    const s = store();
    const clock = { t: Date.parse('2026-11-25T12:00:00Z') };
    const events: string[] = [];
    const a = elector(s.api, 'a', clock, events);
    t.after(() => a.stop());
    a.start();
    for (let i = 0; i < 1000 && !a.leading; i++) await tick(5);
    assert.ok(a.leading);
    // b must have seen the lease before the clock moves: expiry counts from when it last saw it change.
    let bReads = 0;
    const bApi: LeaseApi = {
      ...s.api,
      get: (...args) => {
        bReads++;
        return s.api.get(...args);
      },
    };
    const b = elector(bApi, 'b', clock, events);
    t.after(() => b.stop());
    b.start();
    for (let i = 0; i < 1000 && bReads === 0; i++) await tick(5);
    await tick();
    s.down.add('a'); // a's renewals fail from now on
    // Let b read the last record a wrote while the clock still stands: expiry counts from when
    // b saw the record last change, and a renewal landing just before `down` must not count later.
    const seen = bReads;
    for (let i = 0; i < 1000 && bReads < seen + 2; i++) await tick(5);
    clock.t += 5_000;
    await tick();
    assert.equal(b.leading, false, 'not before the lease duration');
    clock.t += 11_000;
    await tick();
    assert.equal(a.leading, false, 'a stepped down after its renew deadline');
    for (let i = 0; i < 1000 && !b.leading; i++) await tick(5);
    assert.equal(b.leading, true, 'b took over the expired lease');
    assert.equal(s.lease()!.spec!.holderIdentity, 'b');
    await a.stop();
    await b.stop();
  });
});
