import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultConfig } from '../profiles/index.js';
import { defaultConfigWith } from '../../test/support/inject-fixtures.js';
import { formatStatus, parseStatus, templateHash } from './status-annotation.js';

const KEY = 'sidecar.istio.io/status';

describe('status annotation', () => {
  it("starts as Istio's, empty lists left out, our fields after; both forms read the same", () => {
    const status = {
      initContainers: ['init'],
      containers: null,
      volumes: ['v'],
      imagePullSecrets: null,
      revision: 'default',
      templates: ['sidecar'],
      templateHash: '0123456789abcdef',
      v: 2 as const,
      rm: 'aB3x_Qz9-k',
      undo: [{ p: '/spec/volumes', k: 1 as const }],
    };
    const text = formatStatus(status);
    assert.equal(
      text,
      '{"initContainers":["init"],"volumes":["v"],"revision":"default","templates":["sidecar"],"templateHash":"0123456789abcdef","v":2,"rm":"aB3x_Qz9-k","undo":[{"p":"/spec/volumes","k":1}]}',
    );
    assert.deepEqual(parseStatus(text, KEY), { ours: true, status });
    // Written before issue 37: nulls, no format; read as format 1.
    const old =
      '{"initContainers":["init"],"containers":null,"volumes":["v"],"imagePullSecrets":null,"revision":"default","templates":["sidecar"],"templateHash":"0123456789abcdef"}';
    const { v: _v, rm: _rm, undo: _undo, ...format1 } = status;
    assert.deepEqual(parseStatus(old, KEY), { ours: true, status: format1 });
  });

  it('a format it does not know, or an rm that is not hashes, is SI_INJECT_STATUS', () => {
    const base = '{"containers":["c"],"revision":"default","templates":["sidecar"],"templateHash":"0123456789abcdef"';
    assert.throws(() => parseStatus(`${base},"v":3}`, KEY), /format "v": 3, which this injector does not know/);
    assert.throws(() => parseStatus(`${base},"v":2,"rm":"abc"}`, KEY), /"rm" that is not a list of member hashes/);
    assert.throws(() => parseStatus(`${base},"v":2,"rm":["abcde"]}`, KEY), /"rm" that is not a list of member hashes/);
    assert.throws(() => parseStatus(`${base},"v":2,"undo":[{"p":"/spec/volumes","k":2}]}`, KEY), /invalid undo entry 0/);
  });

  it("reads Istio's own status as foreign (no undo)", () => {
    const istio = '{"initContainers":["istio-init","istio-proxy"],"containers":null,"volumes":["istio-envoy"],"imagePullSecrets":null,"revision":"default"}';
    const p = parseStatus(istio, KEY);
    assert.equal(p.ours, false);
    assert.deepEqual(p.status.initContainers, ['istio-init', 'istio-proxy']);
    assert.deepEqual(parseStatus('{"version":"x","containers":[]}', KEY).status.containers, null, 'old Istio formats read too');
  });

  it('malformed values are SI_INJECT_STATUS naming the annotation', () => {
    for (const bad of ['{', '[]', '{"containers":"x"}', '{"containers":[1]}', '{"templates":[],"undo":[{"p":"x"}]}', '{"templates":[],"undo":{}}']) {
      assert.throws(
        () => parseStatus(bad, KEY),
        (err: Error & { code?: string }) => err.code === 'SI_INJECT_STATUS' && err.message.includes(KEY),
        bad,
      );
    }
  });

  it('templateHash: 16 hex digits, stable, changes with the values and with the template list', () => {
    const a = templateHash(defaultConfig(), ['sidecar']);
    assert.match(a, /^[0-9a-f]{16}$/);
    assert.equal(templateHash(defaultConfigWith(), ['sidecar']), a, 'same content, same hash, whatever object');
    assert.notEqual(templateHash(defaultConfigWith({ global: { tag: 'other' } }), ['sidecar']), a);
    assert.notEqual(templateHash(defaultConfig(), ['sidecar', 'sidecar']), a);
  });
});
