/**
 * @module e2e/lib/injected
 * What "injected by the built-in config" means for a pod the apiserver stored: the sidecar,
 * the init container, the volumes and the status annotation, once each.
 */
import assert from 'node:assert/strict';
import type { Obj } from './kube.js';

export const SIDECAR = 'sidecar-proxy';
export const INIT = 'proxy-init';
const VOLUMES = ['sidecar-proxy-workdir', 'sidecar-podinfo', 'sidecar-token'];
export const STATUS = 'sidecar.istio.io/status';
/** The namespace label of the built-in config. */
export const ENABLED = { 'istio-injection': 'enabled' };

const count = (list: Obj[] | undefined, name: string): number => (list ?? []).filter((c) => c.name === name).length;

export function assertInjected(pod: Obj, what = pod.metadata?.name as string): void {
  assert.equal(count(pod.spec.containers, SIDECAR), 1, `${what}: exactly one ${SIDECAR} container`);
  assert.equal(count(pod.spec.initContainers, INIT), 1, `${what}: exactly one ${INIT} init container`);
  for (const v of VOLUMES) assert.equal(count(pod.spec.volumes, v), 1, `${what}: volume ${v} once`);
  const status = pod.metadata.annotations?.[STATUS];
  assert.ok(typeof status === 'string', `${what}: has the ${STATUS} annotation`);
  const parsed = JSON.parse(status) as Obj;
  assert.deepEqual(parsed.containers, [SIDECAR], `${what}: the status annotation records the sidecar`);
  assert.deepEqual(parsed.initContainers, [INIT]);
}

export function assertNotInjected(pod: Obj, what = pod.metadata?.name as string): void {
  assert.equal(count(pod.spec.containers, SIDECAR), 0, `${what}: no sidecar`);
  assert.equal(count(pod.spec.initContainers, INIT), 0, `${what}: no init container`);
  assert.equal(pod.metadata.annotations?.[STATUS], undefined, `${what}: no status annotation`);
}
