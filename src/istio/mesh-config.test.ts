import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultConfigWith } from '../../test/support/inject-fixtures.js';
import { meshSettings, parseProxyConfigAnnotation, podProxyConfig } from './mesh-config.js';
import { formatProtoDuration, parseProtoDuration } from './proto.js';

describe('mesh and proxy config', () => {
  it("values.meshConfig overrides Istio's defaults; defaultConfig merges field by field, proxyMetadata key by key", () => {
    const s = meshSettings(defaultConfigWith({ meshConfig: { trustDomain: 'corp', defaultConfig: { proxyMetadata: { A: '1' }, concurrency: 4 } } }));
    assert.equal(s.mesh.trustDomain, 'corp');
    assert.equal(s.mesh.proxyListenPort, 15001);
    assert.equal(s.proxy.concurrency, 4);
    assert.equal(s.proxy.discoveryAddress, 'istiod.istio-system.svc:15012');
    const pod = podProxyConfig(s, '{"proxyMetadata": {"B": "2"}, "drainDuration": "10s"}');
    assert.deepEqual(pod.json.proxyMetadata, { A: '1', B: '2' });
    assert.equal(pod.json.drainDuration, '10s');
    assert.deepEqual(pod.object.toJSON(), { drainDuration: '10s', concurrency: 4, proxyMetadata: { A: '1', B: '2' } });
  });

  it('current Istio has no concurrency or tracing default: an explicit concurrency 2 stays in the cleaned proxy config', () => {
    // Found by differential testing against istioctl kube-inject (PROXY_CONFIG kept {"concurrency":2}).
    const s = meshSettings(defaultConfigWith({}));
    assert.equal(s.proxy.concurrency, undefined);
    assert.equal(s.proxy.tracing, undefined);
    assert.deepEqual(podProxyConfig(s, 'concurrency: 2').object.toJSON(), { concurrency: 2 });
  });

  it('an invalid proxy.istio.io/config is SI_INJECT_ANNOTATION naming the annotation and the field', () => {
    for (const [text, want] of [
      ['{', /not valid YAML or JSON/],
      ['[1]', /must hold a ProxyConfig map/],
      ['interceptionMode: SIDEWAYS', /interceptionMode: must be one of REDIRECT, TPROXY, NONE/],
      ['drainDuration: 1m', /drainDuration: must be a duration in seconds/],
      ['concurrency: many', /concurrency: must be an integer/],
      ['holdApplicationUntilProxyStarts: "yes"', /holdApplicationUntilProxyStarts: must be true or false/],
    ] as const) {
      assert.throws(
        () => parseProxyConfigAnnotation(text),
        (err: Error & { code?: string }) => err.code === 'SI_INJECT_ANNOTATION' && err.message.includes('proxy.istio.io/config') && want.test(err.message),
        text,
      );
    }
  });

  it('accepts protojson spellings: snake_case names, enum numbers, numeric strings', () => {
    assert.deepEqual(parseProxyConfigAnnotation('interception_mode: 1\nstatus_port: "15021"'), { interceptionMode: 'TPROXY', statusPort: 15021 });
  });

  it('an invalid values.meshConfig is reported as a config problem', () => {
    assert.throws(
      () => meshSettings(defaultConfigWith({ meshConfig: { proxyListenPort: 'x' } })),
      /values\.meshConfig is invalid: values\.meshConfig\.proxyListenPort: must be an integer/,
    );
  });

  it('protojson durations round-trip in canonical form', () => {
    assert.equal(parseProtoDuration('1.5s'), 1_500_000_000n);
    assert.equal(formatProtoDuration(1_500_000_000n), '1.500s');
    assert.equal(formatProtoDuration(parseProtoDuration('-0.000001s')!), '-0.000001s');
    assert.equal(parseProtoDuration('1m'), undefined);
  });
});
