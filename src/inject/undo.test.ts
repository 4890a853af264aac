import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { podArb } from '../../test/support/inject-arbitraries.js';
import { cloneJson, type JsonObject } from '../util/json.js';
import type { Pod } from './pod-types.js';
import { applyUndo, computeUndo, removeInjected } from './undo.js';

function roundTrip(before: JsonObject, after: JsonObject) {
  const entries = computeUndo(before, after);
  const restored = cloneJson(after);
  const warnings: string[] = [];
  applyUndo(restored, entries, warnings);
  assert.deepEqual(restored, before);
  assert.deepEqual(warnings, []);
  return entries;
}

describe('undo', () => {
  it('records added and overwritten keys by key (escaped pointers), not by list index', () => {
    const before: JsonObject = { metadata: { labels: { app: 'a', 'x/y': '1' } }, spec: { containers: [{ name: 'a', image: 'a:1' }, { name: 'b' }] } };
    const after: JsonObject = {
      metadata: { labels: { app: 'changed', 'x/y': '1', 'm~n': 'added' }, annotations: { k: 'v' } },
      spec: { containers: [{ name: 'b' }, { name: 'a', image: 'a:1', env: [{ name: 'E', value: '1' }] }] },
    };
    const entries = roundTrip(before, after);
    assert.deepEqual(entries, [
      { p: '/metadata/annotations/k' },
      { p: '/metadata/annotations', e: 1 },
      { p: '/metadata/labels/m~0n' },
      { p: '/metadata/labels/app', v: 'a' },
      { p: '/spec/containers', n: 'a', s: '/env' },
      { p: '/spec/containers', o: ['a', 'b'] },
    ]);
  });

  it('a map or list the injection created is taken back member by member: what others added since stays (kube-apiserver e2e)', () => {
    // Injected by `inject -f`, then the ServiceAccount admission plugin adds its token volume and
    // another webhook an annotation before our webhook sees the pod again.
    const before: JsonObject = { spec: { containers: [{ name: 'app' }] } };
    const after: JsonObject = { metadata: { annotations: { ours: '1' } }, spec: { containers: [{ name: 'app' }], volumes: [] } };
    const entries = roundTrip(before, after);
    assert.deepEqual(entries, [
      { p: '/metadata/annotations/ours' },
      { p: '/metadata/annotations', e: 1 },
      { p: '/metadata', e: 1 },
      { p: '/spec/volumes', e: 1 },
    ]);
    const later: JsonObject = {
      metadata: { annotations: { ours: '1', theirs: '2' } },
      spec: { containers: [{ name: 'app' }], volumes: [{ name: 'kube-api-access-x1y2z' }] },
    };
    const warnings: string[] = [];
    applyUndo(later, entries, warnings);
    assert.deepEqual(later, {
      metadata: { annotations: { theirs: '2' } },
      spec: { containers: [{ name: 'app' }], volumes: [{ name: 'kube-api-access-x1y2z' }] },
    });
    assert.deepEqual(warnings, []);
  });

  it('a record from before `e` existed that deletes a whole named list keeps the items others added', () => {
    const pod: JsonObject = { spec: { containers: [{ name: 'app' }], volumes: [{ name: 'kube-api-access-x1y2z' }], initContainers: [] } };
    applyUndo(pod, [{ p: '/spec/volumes' }, { p: '/spec/initContainers' }], []);
    assert.deepEqual(pod, { spec: { containers: [{ name: 'app' }], volumes: [{ name: 'kube-api-access-x1y2z' }] } });
  });

  it('puts a whole removed user item back at its index (a customised sidecar)', () => {
    const before: JsonObject = { spec: { containers: [{ name: 'proxy', image: 'auto' }, { name: 'app' }] } };
    const after: JsonObject = { spec: { containers: [{ name: 'app' }] } };
    assert.deepEqual(roundTrip(before, after), [{ p: '/spec/containers', n: 'proxy', v: { name: 'proxy', image: 'auto' }, i: 0 }]);
  });

  it('restores absent vs null vs empty maps exactly', () => {
    for (const annotations of [undefined, null, {}]) {
      const before: JsonObject = { metadata: annotations === undefined ? {} : { annotations }, spec: { containers: [] } };
      roundTrip(before, { metadata: { annotations: { added: 'x' } }, spec: { containers: [], initContainers: [] } });
    }
  });

  it('keeps what others changed since injection, and warns about entries that no longer fit', () => {
    const before: JsonObject = { spec: { containers: [{ name: 'app', image: 'v1' }] } };
    const after: JsonObject = { spec: { containers: [{ name: 'app', image: 'v1', env: [] }] } };
    const entries = computeUndo(before, after);
    const later: JsonObject = { metadata: { labels: { other: 'webhook' } }, spec: { containers: [{ name: 'app', image: 'v2', env: [] }, { name: 'other' }] } };
    const warnings: string[] = [];
    applyUndo(later, entries, warnings);
    assert.deepEqual(later, { metadata: { labels: { other: 'webhook' } }, spec: { containers: [{ name: 'app', image: 'v2' }, { name: 'other' }] } });
    const gone: JsonObject = { spec: { containers: [] } };
    applyUndo(gone, entries, warnings);
    assert.match(warnings[0], /could not restore \/spec\/containers item "app"\/env: the item is gone/);
  });

  it('removeInjected drops the listed items and the status annotation only', () => {
    const pod: Pod = {
      metadata: { annotations: { s: '{}', keep: '1' } },
      spec: { containers: [{ name: 'app' }, { name: 'proxy' }], volumes: [{ name: 'v' }, { name: 'mine' }], imagePullSecrets: [{ name: 'reg' }] },
    };
    removeInjected(pod, { containers: ['proxy'], initContainers: ['absent'], volumes: ['v'], imagePullSecrets: null, revision: '' }, 's');
    assert.deepEqual(pod, {
      metadata: { annotations: { keep: '1' } },
      spec: { containers: [{ name: 'app' }], volumes: [{ name: 'mine' }], imagePullSecrets: [{ name: 'reg' }] },
    });
  });

  it('property: for any two pods, applying the undo to the second gives the first, with fine-grained entries', () => {
    fc.assert(
      fc.property(podArb(), podArb(), (before, after) => {
        const entries = roundTrip(before, after);
        assert.ok(
          entries.every((e) => e.p !== '/spec' || e.n !== undefined || e.o !== undefined),
          JSON.stringify(entries),
        );
      }),
      { numRuns: 300 },
    );
  });
});
