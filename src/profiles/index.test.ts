/**
 * The composition: configs loaded through it carry the default profiles, bound once at load, and
 * what a profile computes from the config is checked there (a bad values.meshConfig fails the
 * load, so reload keeps the last good config, instead of failing every pod later).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig as parseWithoutProfiles } from '../config/load.js';
import { ConfigError } from '../errors.js';
import { defaultConfig, DEFAULT_PROFILES, parseConfig, withProfiles } from './index.js';

describe('values.meshConfig is checked when the config loads', () => {
  it('a meshConfig that is not a map, or has a bad field, is a load error, not a failure at the first pod', () => {
    assert.throws(
      () => parseConfig('policy: enabled\n', '{"meshConfig": "oops"}'),
      (e: unknown) => e instanceof ConfigError && /values\.meshConfig must be a map/.test(e.message),
    );
    assert.throws(
      () => parseConfig('policy: enabled\n', '{"meshConfig": {"defaultConfig": {"holdApplicationUntilProxyStarts": "sometimes"}}}'),
      (e: unknown) => e instanceof ConfigError && /values\.meshConfig is invalid/.test(e.message),
    );
    assert.doesNotThrow(() => parseConfig('policy: enabled\n', '{"meshConfig": {"defaultConfig": {"holdApplicationUntilProxyStarts": true}}}'));
  });
});

describe('profiles are bound at load', () => {
  it('the loaders give configs with the default profiles; config/load alone gives none', () => {
    assert.deepEqual(
      defaultConfig().profiles.map((p) => p.name),
      ['istio'],
    );
    assert.equal(DEFAULT_PROFILES.length, 1);
    const bare = parseWithoutProfiles('policy: enabled\n');
    assert.deepEqual(bare.profiles, []);
    const bound = withProfiles(bare);
    assert.deepEqual(
      bound.profiles.map((p) => p.name),
      ['istio'],
    );
    assert.ok(Object.isFrozen(bound), 'a bound config is frozen like any loaded config');
    assert.deepEqual(bare.profiles, [], 'binding leaves the given config alone');
    assert.equal(defaultConfig(), defaultConfig(), 'the built-in config is bound once');
  });

  it('a config with no profile still injects what its templates render (no Istio data, no Istio checks)', async () => {
    const { injectPod } = await import('../inject/index.js');
    const bare = parseWithoutProfiles('policy: enabled\ntemplates:\n  s: "spec: {containers: [{name: side, image: side:1}]}"\ndefaultTemplates: [s]\n');
    const pod = { metadata: { annotations: { 'sidecar.istio.io/interceptionMode': 'BOGUS' } }, spec: { containers: [{ name: 'app' }] } };
    const r = injectPod(pod, { namespace: 'x', mode: 'manual' }, bare);
    assert.equal(r.kind, 'injected');
    assert.throws(() => injectPod(pod, { namespace: 'x', mode: 'manual' }, withProfiles(bare)), /interceptionMode/);
  });
});
