import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as lib from './index.js';

test('the package entry point injects a pod with the built-in config, as a library user would call it', () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'shop' }, spec: { containers: [{ name: 'web', image: 'nginx' }] } };
  const result = lib.injectPod(pod, { namespace: 'shop', mode: 'webhook' }, lib.defaultConfig());
  assert.equal(result.kind, 'injected');
  if (result.kind !== 'injected') return;
  const patched = lib.applyPatch(pod, result.patch) as typeof pod;
  assert.deepEqual(patched, result.pod);
  assert.ok(patched.spec.containers.some((c) => c.name === 'sidecar-proxy'));
});

test('the package entry point renders Go templates and reports errors with stable codes', () => {
  const t = lib.parseTemplate('t', '{{ .name | upper }}', { funcs: lib.templateFuncs() });
  assert.equal(t.execute({ name: 'proxy' }), 'PROXY');
  assert.throws(
    () => lib.parseTemplate('t', '{{ nosuch }}'),
    (e: unknown) => e instanceof lib.TemplateError && e.code === 'SI_TEMPLATE_PARSE',
  );
});
