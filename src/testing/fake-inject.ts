/**
 * @module testing/fake-inject
 * A small stand-in for the injection core (`injectPod`) with the same signature and result
 * shapes, so the webhook can be tested before and independently of the real core: it adds one
 * sidecar container and a status annotation, and computes the patch with the project's own
 * `createPatch`. Annotations on the pod steer it into the core's other outcomes:
 * `fake.test/inject: "false"` skips, `fake.test/fail` throws an InjectionError, `fake.test/bug`
 * throws a TypeError (a bug in the core), `fake.test/slow-ms` burns CPU.
 */
import { InjectionError } from '../errors.js';
import type { Decision, InjectionContext, InjectionResult } from '../inject/types.js';
import { createPatch } from '../patch/diff.js';
import { cloneJson, isPlainObject, type JsonObject } from '../util/json.js';

export const STATUS_ANNOTATION = 'fake.test/status';

export interface FakeConfig {
  hash: string;
  image: string;
  sidecarName: string;
  warnings: string[];
}

export function fakeConfig(image = 'proxy:1', sidecarName = 'sidecar-proxy'): FakeConfig {
  return { hash: `fake-${image}`, image, sidecarName, warnings: [] };
}

/** Contexts seen by the last calls (newest last), for tests that check what the webhook passed. */
export const seenContexts: InjectionContext[] = [];
/** Pods seen by the last calls, as handed over by the webhook. */
export const seenPods: unknown[] = [];

function decision(inject: boolean, reason: Decision['reason'], message: string, warnings: string[] = []): Decision {
  return { inject, reason, message, steps: [], warnings };
}

export function fakeInject(pod: unknown, ctx: InjectionContext, config: FakeConfig): InjectionResult {
  seenContexts.push(ctx);
  seenPods.push(pod);
  if (seenContexts.length > 100) {
    seenContexts.shift();
    seenPods.shift();
  }
  if (!isPlainObject(pod)) throw new InjectionError('SI_INPUT_OBJECT', 'the object is not a pod');
  const metadata = isPlainObject(pod.metadata) ? pod.metadata : {};
  const annotations = isPlainObject(metadata.annotations) ? metadata.annotations : {};
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  const containers = Array.isArray(spec.containers) ? spec.containers : [];

  const slow = Number(annotations['fake.test/slow-ms'] ?? 0);
  if (slow > 0) {
    const until = Date.now() + slow;
    while (Date.now() < until) {
      // busy: the real core is synchronous too
    }
  }
  if (Object.hasOwn(annotations, 'fake.test/bug')) {
    // A genuine TypeError, as a bug in the core would produce.
    (undefined as unknown as { boom(): void }).boom();
  }
  if (Object.hasOwn(annotations, 'fake.test/fail')) {
    throw new InjectionError('SI_INJECT_ANNOTATION', `annotation fake.test/fail: ${String(annotations['fake.test/fail'])}`);
  }
  const hints = annotations['fake.test/inject'] === 'yes' ? ['annotation fake.test/inject is "yes"; did you mean "true"?'] : [];
  if (annotations['fake.test/inject'] === 'false') {
    return { kind: 'skipped', decision: decision(false, 'explicit-disabled', 'the pod opted out'), warnings: [] };
  }
  if (spec.hostNetwork === true) {
    return { kind: 'skipped', decision: decision(false, 'host-network', 'pod has hostNetwork: true; sidecars are never injected into host-network pods'), warnings: [] };
  }
  const status = { initContainers: null, containers: [config.sidecarName], volumes: null, imagePullSecrets: null, revision: 'default' };
  const named = containers.filter((c) => isPlainObject(c) && c.name === config.sidecarName);
  if (Object.hasOwn(annotations, STATUS_ANNOTATION) && named.length === 1) {
    // Already injected by us: nothing to change (idempotent).
    return { kind: 'injected', decision: decision(true, 'policy-enabled', 'already injected', hints), pod: pod as JsonObject, patch: [], status, warnings: [] };
  }
  if (named.length > 0) throw new InjectionError('SI_INJECT_CONFLICT', `the pod already has a container named "${config.sidecarName}"`);

  const modified = cloneJson(pod) as JsonObject;
  const md = (isPlainObject(modified.metadata) ? modified.metadata : (modified.metadata = {})) as JsonObject;
  const ann = (isPlainObject(md.annotations) ? md.annotations : (md.annotations = {})) as JsonObject;
  ann[STATUS_ANNOTATION] = JSON.stringify(status);
  const sp = (isPlainObject(modified.spec) ? modified.spec : (modified.spec = {})) as JsonObject;
  const list = Array.isArray(sp.containers) ? sp.containers : (sp.containers = []);
  list.push({ name: config.sidecarName, image: config.image, env: [{ name: 'POD_NAMESPACE', value: ctx.namespace }] });
  return {
    kind: 'injected',
    decision: decision(true, 'policy-enabled', 'namespace policy enabled', hints),
    pod: modified,
    patch: createPatch(pod, modified),
    status,
    warnings: config.warnings,
  };
}
