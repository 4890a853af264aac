/**
 * @module testing/fake-inject
 * A small stand-in for the injection core (`injectPod`) with the same signature and result
 * shapes, so the webhook can be tested before and independently of the real core: it adds one
 * sidecar container and a status annotation, and computes the patch with the project's own
 * `createPatch`. Annotations on the pod steer it into the core's other outcomes:
 * `fake.test/inject: "false"` skips (other values than true/false give a hint and inject),
 * `fake.test/fail` throws an InjectionError, `fake.test/bug` throws a TypeError (a bug in the
 * core), `fake.test/slow-ms` burns CPU. Like a real injector it skips kube-system, mirror pods and
 * host-network pods, and refuses a pod whose containers already use the sidecar's name or port.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, InjectionError } from '../errors.js';
import type { Decision, InjectionContext, InjectionResult } from '../inject/types.js';
import { createPatch } from '../patch/diff.js';
import { cloneJson, isPlainObject, type JsonObject } from '../util/json.js';

export const STATUS_ANNOTATION = 'fake.test/status';
export const SIDECAR_PORT = 15090;

export interface FakeConfig {
  hash: string;
  image: string;
  sidecarName: string;
  warnings: string[];
}

export function fakeConfig(image = 'proxy:1', sidecarName = 'sidecar-proxy'): FakeConfig {
  return { hash: `fake-${image}`, image, sidecarName, warnings: [] };
}

/**
 * The fake core's config loader, with the real loader's contract: `path` is a file or a
 * directory holding `config` (a mounted ConfigMap); the content is JSON `{"image", "sidecarName"}`;
 * anything else throws ConfigError.
 */
export async function loadFakeConfig(path: string): Promise<FakeConfig> {
  const file = (await stat(path)).isDirectory() ? join(path, 'config') : path;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ConfigError('SI_CONFIG_READ', `cannot read ${file}: ${(err as NodeJS.ErrnoException).code}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ConfigError('SI_CONFIG_INVALID', `${file}: not JSON: ${(err as Error).message}`);
  }
  if (!isPlainObject(value) || typeof value.image !== 'string' || value.image.length === 0) {
    throw new ConfigError('SI_CONFIG_INVALID', `${file}: "image" must be a non-empty string`);
  }
  const name = typeof value.sidecarName === 'string' ? value.sidecarName : 'sidecar-proxy';
  return fakeConfig(value.image, name);
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
  const initContainers = Array.isArray(spec.initContainers) ? spec.initContainers : [];

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
  const optIn = annotations['fake.test/inject'];
  const hints = optIn !== undefined && optIn !== 'true' && optIn !== 'false' ? [`annotation fake.test/inject is ${JSON.stringify(optIn)}; use "true" or "false"`] : [];
  if (optIn === 'false') {
    return { kind: 'skipped', decision: decision(false, 'explicit-disabled', 'the pod opted out'), warnings: [] };
  }
  if (ctx.namespace === 'kube-system' || ctx.namespace === 'sidecar-injector') {
    return { kind: 'skipped', decision: decision(false, 'ignored-namespace', `namespace ${ctx.namespace} is never injected`), warnings: [] };
  }
  if (Object.hasOwn(annotations, 'kubernetes.io/config.mirror')) {
    return { kind: 'skipped', decision: decision(false, 'mirror-pod', 'mirror pods cannot be changed'), warnings: [] };
  }
  if (spec.hostNetwork === true) {
    return { kind: 'skipped', decision: decision(false, 'host-network', 'pod has hostNetwork: true; sidecars are never injected into host-network pods'), warnings: [] };
  }
  const status = { initContainers: null, containers: [config.sidecarName], volumes: null, imagePullSecrets: null, revision: 'default' };
  const named = [...containers, ...initContainers].filter((c) => isPlainObject(c) && c.name === config.sidecarName);
  if (Object.hasOwn(annotations, STATUS_ANNOTATION) && named.length === 1) {
    // Already injected by us: nothing to change (idempotent).
    return { kind: 'injected', decision: decision(true, 'policy-enabled', 'already injected', hints), pod: pod as JsonObject, patch: [], status, warnings: [] };
  }
  if (named.length > 0) throw new InjectionError('SI_INJECT_CONFLICT', `the pod already has a container named "${config.sidecarName}"`);
  for (const c of containers) {
    const ports = isPlainObject(c) && Array.isArray(c.ports) ? c.ports : [];
    if (ports.some((p) => isPlainObject(p) && p.containerPort === SIDECAR_PORT)) {
      throw new InjectionError('SI_INJECT_CONFLICT', `container ${JSON.stringify(isPlainObject(c) ? c.name : '?')} uses port ${SIDECAR_PORT}, which the sidecar needs`);
    }
  }

  const modified = cloneJson(pod) as JsonObject;
  const md = (isPlainObject(modified.metadata) ? modified.metadata : (modified.metadata = {})) as JsonObject;
  const ann = (isPlainObject(md.annotations) ? md.annotations : (md.annotations = {})) as JsonObject;
  ann[STATUS_ANNOTATION] = JSON.stringify(status);
  const sp = (isPlainObject(modified.spec) ? modified.spec : (modified.spec = {})) as JsonObject;
  const list = Array.isArray(sp.containers) ? sp.containers : (sp.containers = []);
  list.push({ name: config.sidecarName, image: config.image, ports: [{ containerPort: SIDECAR_PORT }], env: [{ name: 'POD_NAMESPACE', value: ctx.namespace }] });
  return {
    kind: 'injected',
    decision: decision(true, 'policy-enabled', 'namespace policy enabled', hints),
    pod: modified,
    patch: createPatch(pod, modified),
    status,
    warnings: config.warnings,
  };
}
