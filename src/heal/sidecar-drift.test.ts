/**
 * @module heal/sidecar-drift.test
 * `status` names only what changed (issue 27, item 9). The live pod is what a real
 * kube-apiserver 1.36 stored for the built-in injection (testdata/heal/live-injected-pod.json:
 * `inject -f` of a one-container Pod, then `kubectl create --dry-run=server -o json`): the
 * service account token mount added to every container, `2000m` stored as `2`, zero-valued
 * probe fields dropped, defaults filled in. A tag-only change is the image and nothing else;
 * a real change of another field is still named.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { defaultConfigWith } from '../../test/support/inject-fixtures.js';
import { webhookScopes } from '../install/webhook-rules.js';
import type { LoadedConfig } from '../config/types.js';
import { classifyPod } from './classify.js';

const LIVE = JSON.parse(readFileSync(new URL('../../testdata/heal/live-injected-pod.json', import.meta.url), 'utf8')) as unknown;

function changes(config: LoadedConfig) {
  const c = classifyPod(LIVE, {
    config,
    scopes: webhookScopes(config.injectionKeys, { injectorNamespace: 'sidecar-injector' }),
    namespaceLabels: { 'istio-injection': 'enabled' },
  });
  assert.equal(c.state, 'stale');
  return (c as { changes: { what: string; item?: string; fields?: string[] }[] }).changes;
}

test('the pod as the apiserver stored it is current for the config that injected it', () => {
  const config = defaultConfigWith();
  const c = classifyPod(LIVE, {
    config,
    scopes: webhookScopes(config.injectionKeys, { injectorNamespace: 'sidecar-injector' }),
    namespaceLabels: { 'istio-injection': 'enabled' },
  });
  assert.equal(c.state, 'current');
});

test('a tag-only change names the images and nothing else (no volumeMounts, probes or resources)', () => {
  assert.deepEqual(
    changes(defaultConfigWith({ global: { tag: '1.25.0' } })).map((c) => `${c.what} ${c.item}`),
    ['image initContainers/proxy-init', 'image containers/sidecar-proxy'],
  );
});

test('a changed CPU limit is named as resources, on that container only', () => {
  const found = changes(defaultConfigWith({ global: { proxy: { resources: { limits: { cpu: '3' } } } } }));
  assert.deepEqual(
    found.map((c) => `${c.what} ${c.item} ${c.fields?.join(',') ?? ''}`),
    ['spec containers/sidecar-proxy resources'],
  );
});
