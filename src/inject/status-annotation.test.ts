import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultConfig } from '../profiles/index.js';
import { defaultConfigWith } from '../../test/support/inject-fixtures.js';
import { formatStatus, parseStatus, templateHash } from './status-annotation.js';

const KEY = 'sidecar.istio.io/status';

describe('status annotation', () => {
  it("starts exactly as Istio's, empty lists as null, our fields after", () => {
    const text = formatStatus({
      initContainers: ['init'],
      containers: null,
      volumes: ['v'],
      imagePullSecrets: null,
      revision: 'default',
      templates: ['sidecar'],
      templateHash: '0123456789abcdef',
      undo: [],
    });
    assert.equal(
      text,
      '{"initContainers":["init"],"containers":null,"volumes":["v"],"imagePullSecrets":null,"revision":"default","templates":["sidecar"],"templateHash":"0123456789abcdef"}',
    );
    assert.deepEqual(parseStatus(text, KEY), {
      ours: true,
      status: {
        initContainers: ['init'],
        containers: null,
        volumes: ['v'],
        imagePullSecrets: null,
        revision: 'default',
        templates: ['sidecar'],
        templateHash: '0123456789abcdef',
      },
    });
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
