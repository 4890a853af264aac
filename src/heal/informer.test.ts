/**
 * Informer against a scripted API: the list is read page by page through the transform; the
 * watch asks for bookmarks from the list's resourceVersion and resumes from the last one seen
 * (after the apiserver ends it, or a connection failure) without listing again; 410 Gone, in
 * the stream or at the start, relists exactly once; retries back off exponentially up to the
 * cap; nothing runs after stop.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClusterError } from '../errors.js';
import { Informer } from './informer.js';
import type { ClusterApi, ReadOptions } from '../kube/cluster-api.js';

type Obj = Record<string, any>;
const pod = (name: string, rv: string, extra: Obj = {}): Obj => ({
  metadata: { name, namespace: 'ns', resourceVersion: rv },
  spec: { big: 'x'.repeat(100) },
  ...extra,
});

interface Watch {
  query: Record<string, string>;
  onEvent(type: string, obj: unknown): void;
  done(err: unknown): void;
  aborted: boolean;
}

/** `refuse` decides how each watch attempt goes: undefined accepts it, a number rejects with that HTTP status, 0 with a connection error. */
function scripted(options: { pages?: Obj[][]; rv?: string; refuse?: (attempt: number) => number | undefined } = {}) {
  const calls: string[] = [];
  const watches: Watch[] = [];
  let pages = options.pages ?? [[pod('a', '1'), pod('b', '2')], [pod('c', '3')]];
  let rv = options.rv ?? '10';
  let attempts = 0;
  const api: Pick<ClusterApi, 'listPages' | 'watch'> = {
    async listPages(path: string, _q: Record<string, string>, onPage: (items: unknown[]) => void | Promise<void>, o?: ReadOptions) {
      calls.push(`list ${path}${o?.metadataOnly ? ' metadata' : ''}`);
      for (const p of pages) await onPage(p);
      return { resourceVersion: rv, count: pages.flat().length };
    },
    async watch(_path: string, query: Record<string, string>, onEvent: (type: string, obj: unknown) => void, done: (err: unknown) => void) {
      calls.push(`watch rv=${query.resourceVersion} bookmarks=${query.allowWatchBookmarks}`);
      const refused = options.refuse?.(attempts++);
      if (refused !== undefined) throw new ClusterError('SI_CLUSTER_REQUEST', `refused ${refused}`, { details: refused === 0 ? {} : { status: refused } });
      const w: Watch = { query, onEvent, done, aborted: false };
      watches.push(w);
      return {
        abort: () => {
          w.aborted = true;
        },
      };
    },
  };
  return {
    api,
    calls,
    watches,
    set: (p: Obj[][], r: string) => {
      pages = p;
      rv = r;
    },
  };
}

async function until(what: string, check: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 2));
  }
  assert.fail(`timed out: ${what}`);
}

function make(api: Pick<ClusterApi, 'listPages' | 'watch'>, extra: Partial<ConstructorParameters<typeof Informer<{ rv: string }>>[0]> = {}) {
  const logs: { message: string; fields?: Record<string, unknown> }[] = [];
  const events: string[] = [];
  const syncs: string[] = [];
  const informer = new Informer<{ rv: string }>({
    api,
    path: '/api/v1/pods',
    backoff: { initialMs: 5, maxMs: 40 },
    random: () => 1,
    transform: (o) => ((o as Obj).metadata.name === 'skip' ? undefined : { rv: (o as Obj).metadata.resourceVersion }),
    onEvent: (k, b, a) => events.push(`${k} ${b?.rv ?? '-'}>${a?.rv ?? '-'}`),
    onSync: (reason) => syncs.push(reason),
    log: (message, fields) => logs.push({ message, fields }),
    ...extra,
  });
  return { informer, logs, events, syncs };
}

describe('Informer', () => {
  it('keeps what the transform returns, page by page, and watches with bookmarks from the list resourceVersion', async () => {
    const s = scripted({ pages: [[pod('a', '1'), pod('skip', '2')], [pod('c', '3')]] });
    const { informer, syncs } = make(s.api, { metadataOnly: true });
    await informer.start();
    assert.deepEqual(
      [...informer.items],
      [
        ['ns/a', { rv: '1' }],
        ['ns/c', { rv: '3' }],
      ],
      'transformed records only, no spec',
    );
    assert.deepEqual(syncs, ['start']);
    await until('the watch', () => s.watches.length === 1);
    assert.deepEqual(s.calls, ['list /api/v1/pods metadata', 'watch rv=10 bookmarks=true']);
    informer.stop();
  });

  it('follows events and bookmarks, and resumes from the last resourceVersion without listing when the apiserver ends the watch or the connection fails', async () => {
    const s = scripted();
    const { informer, events, logs } = make(s.api);
    await informer.start();
    await until('the watch', () => s.watches.length === 1);
    const w = s.watches[0];
    w.onEvent('ADDED', pod('d', '11'));
    w.onEvent('MODIFIED', pod('a', '12'));
    w.onEvent('MODIFIED', pod('skip', '13'));
    w.onEvent('DELETED', pod('b', '14'));
    w.onEvent('BOOKMARK', { metadata: { resourceVersion: '20' } });
    await until('the events applied', () => events.length === 3);
    assert.deepEqual(events, ['ns/d ->11', 'ns/a 1>12', 'ns/b 2>-']);
    assert.deepEqual([...informer.items.keys()].sort(), ['ns/a', 'ns/c', 'ns/d']);
    w.done(null);
    await until('the resumed watch', () => s.watches.length === 2);
    s.watches[1].onEvent('BOOKMARK', { metadata: { resourceVersion: '25' } });
    s.watches[1].done(new Error('socket hang up'));
    await until('the watch after the failure', () => s.watches.length === 3);
    assert.deepEqual(s.calls, ['list /api/v1/pods', 'watch rv=10 bookmarks=true', 'watch rv=20 bookmarks=true', 'watch rv=25 bookmarks=true']);
    assert.equal(informer.stats.lists.start, 1);
    assert.ok(logs.some((l) => l.message.startsWith('watch ended; resuming')));
    informer.stop();
  });

  it('applies a burst of watch events in order, in slices, letting other work run in between', async () => {
    const s = scripted({ pages: [[]] });
    const busy = (ms: number): void => {
      const t = performance.now();
      while (performance.now() - t < ms);
    };
    const { informer, events } = make(s.api, { sliceMs: 5, transform: (o) => (busy(1), { rv: (o as Obj).metadata.resourceVersion }) });
    await informer.start();
    await until('the watch', () => s.watches.length === 1);
    for (let i = 0; i < 100; i++) s.watches[0].onEvent('ADDED', pod(`p${i}`, String(100 + i)));
    let interleaved = -1;
    setImmediate(() => (interleaved = events.length));
    await until('all applied', () => events.length === 100);
    assert.deepEqual(
      events,
      Array.from({ length: 100 }, (_, i) => `ns/p${i} ->${100 + i}`),
    );
    assert.ok(interleaved >= 0 && interleaved < 100, `other work ran before the burst was through (after ${interleaved})`);
    informer.stop();
  });

  it('relists exactly once on 410 Gone in the stream, then watches from the new list', async () => {
    const s = scripted();
    const { informer, syncs, logs } = make(s.api);
    await informer.start();
    await until('the watch', () => s.watches.length === 1);
    s.set([[pod('a', '30')]], '31');
    s.watches[0].onEvent('ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 10 (29)' });
    // The apiserver closes the stream after the error; that must not start anything else.
    s.watches[0].done(null);
    await until('the watch after the relist', () => s.watches.length === 2);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(s.watches[0].aborted, true);
    assert.deepEqual(s.calls, ['list /api/v1/pods', 'watch rv=10 bookmarks=true', 'list /api/v1/pods', 'watch rv=31 bookmarks=true']);
    assert.deepEqual(syncs, ['start', 'expired']);
    assert.deepEqual([...informer.items], [['ns/a', { rv: '30' }]]);
    assert.equal(logs.filter((l) => l.message.includes('410')).length, 1);
    informer.stop();
  });

  it('relists once when the watch is refused with 410 at its start', async () => {
    const s = scripted({ refuse: (n) => (n === 0 ? 410 : undefined) });
    const { informer, syncs } = make(s.api);
    await informer.start();
    await until('the watch after the relist', () => s.watches.length === 1);
    assert.deepEqual(s.calls, ['list /api/v1/pods', 'watch rv=10 bookmarks=true', 'list /api/v1/pods', 'watch rv=10 bookmarks=true']);
    assert.deepEqual(syncs, ['start', 'expired']);
    informer.stop();
  });

  it('an apiserver that is down: the same watch is retried with exponential back-off up to the cap, never a list; a delivering watch resets it', async () => {
    const s = scripted({ refuse: (n) => (n < 6 ? (n % 2 === 0 ? 0 : 503) : undefined) });
    const { informer, logs } = make(s.api);
    await informer.start();
    await until('the watch once the apiserver is back', () => s.watches.length === 1, 5000);
    const delays = logs.filter((l) => l.message.startsWith('watch could not start')).map((l) => l.fields?.inMs);
    assert.deepEqual(delays, [5, 10, 20, 40, 40, 40]);
    assert.equal(s.calls.filter((c) => c.startsWith('list')).length, 1, 'no relist while the apiserver was away');
    assert.ok(s.calls.slice(1).every((c) => c === 'watch rv=10 bookmarks=true'));
    s.watches[0].onEvent('BOOKMARK', { metadata: { resourceVersion: '40' } });
    s.watches[0].done(new Error('reset'));
    await until('the next watch', () => s.watches.length === 2);
    assert.equal(logs.at(-1)?.fields?.inMs, 5, 'the back-off starts over after a watch delivered');
    informer.stop();
  });

  it('resync lists again now; stop ends everything, also a list in progress', async () => {
    const s = scripted();
    const { informer, syncs } = make(s.api);
    await informer.start();
    await until('the watch', () => s.watches.length === 1);
    informer.resync();
    await until('the watch after the resync', () => s.watches.length === 2);
    assert.equal(s.watches[0].aborted, true);
    assert.deepEqual(syncs, ['start', 'resync']);
    informer.stop();
    assert.equal(s.watches[1].aborted, true);
    assert.equal(informer.items.size, 0);

    let release: () => void = () => undefined;
    const slow: Pick<ClusterApi, 'listPages' | 'watch'> = {
      listPages: async (_p, _q, onPage) => {
        await new Promise<void>((r) => (release = r));
        await onPage([pod('a', '1')]);
        return { resourceVersion: '1', count: 1 };
      },
      watch: s.api.watch,
    };
    const second = make(slow);
    const started = second.informer.start();
    second.informer.stop();
    release();
    await started;
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(second.informer.items.size, 0);
    assert.equal(s.watches.length, 2, 'no watch after stop');
  });
});
