/**
 * @module test/support/inject-fixtures
 * Configs and pods for the injection core's tests: the built-in config with changed values,
 * small configs from template texts, realistic pods (a Deployment's template, a ReplicaSet pod
 * with generateName), and an assertion bundle for an injected result (patch applies under three
 * RFC 6902 appliers, names unique, re-injection is a no-op, uninjection gives the input back).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { parseConfig } from '../../src/profiles/index.js';
import type { LoadedConfig } from '../../src/config/types.js';
import { injectPod, uninjectPod } from '../../src/inject/index.js';
import type { InjectedResult, InjectionContext } from '../../src/inject/types.js';
import { assertPatchTransforms } from './patch/appliers.js';
import { cloneJson, isPlainObject, type JsonObject } from '../../src/util/json.js';

const DEFAULTS = new URL('../../defaults/', import.meta.url);

/** The built-in config with some values changed (deep-merged). */
export function defaultConfigWith(values: Record<string, unknown> = {}, configChanges: Record<string, unknown> = {}): LoadedConfig {
  const config = parse(readFileSync(new URL('config.yaml', DEFAULTS), 'utf8')) as Record<string, unknown>;
  const base = parse(readFileSync(new URL('values.yaml', DEFAULTS), 'utf8')) as Record<string, unknown>;
  return parseConfig(stringify({ ...config, ...configChanges }), JSON.stringify(merge(base, values)), 'test config');
}

function merge(a: unknown, b: unknown): unknown {
  if (!isPlainObject(a) || !isPlainObject(b)) return b;
  const out: Record<string, unknown> = { ...a };
  for (const k of Object.keys(b)) out[k] = merge(a[k], b[k]);
  return out;
}

/** A config from template texts (`name -> text`), default templates = the first one. */
export function templatesConfig(templates: Record<string, string>, extra: Record<string, unknown> = {}, values: Record<string, unknown> = {}): LoadedConfig {
  const names = Object.keys(templates);
  return parseConfig(
    stringify({ policy: 'enabled', defaultTemplates: [names[0]], templates, ...extra }, { blockQuote: 'literal' }),
    JSON.stringify(values),
    'test config',
  );
}

/** A Deployment's pod template (what the CLI passes, with ctx.owner). */
export function deploymentTemplate(): JsonObject {
  return {
    metadata: { labels: { app: 'shop', version: 'v2' } },
    spec: {
      serviceAccountName: 'shop',
      containers: [
        { name: 'shop', image: 'registry.example/shop:2.1', ports: [{ name: 'http', containerPort: 8080 }], env: [{ name: 'MODE', value: 'prod' }] },
        { name: 'cache', image: 'redis:7' },
      ],
    },
  };
}

/** A pod as a ReplicaSet creates it: generateName, no name, no namespace, controller owner. */
export function replicaSetPod(): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: 'shop-7d9f8b6c5-',
      labels: { app: 'shop', 'pod-template-hash': '7d9f8b6c5' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'shop-7d9f8b6c5', uid: 'u-1', controller: true, blockOwnerDeletion: true }],
    },
    spec: { containers: [{ name: 'shop', image: 'registry.example/shop:2.1' }] },
  };
}

export const WEBHOOK: InjectionContext = { namespace: 'shop', mode: 'webhook' };

/** Names of a pod list. */
export function namesOf(pod: JsonObject, list: string): string[] {
  const spec = pod.spec as Record<string, unknown>;
  const items = spec[list];
  return Array.isArray(items) ? items.map((c) => (c as { name: string }).name) : [];
}

/**
 * Inject and check what must hold for every injection: the input is untouched, the patch turns
 * the input into the result under three appliers, container names are unique, injecting the
 * result again changes nothing, and uninjecting it gives the input back (`original`: the pod
 * before any injection, when `pod` was injected already).
 */
export function injectChecked(pod: unknown, ctx: InjectionContext, config: LoadedConfig, original: unknown = pod): InjectedResult {
  const before = JSON.stringify(pod);
  const r = injectPod(pod, ctx, config);
  assert.equal(JSON.stringify(pod), before, 'the input was mutated');
  assert.equal(r.kind, 'injected', `expected an injection: ${r.decision.message}`);
  const result = r as InjectedResult;
  assertPatchTransforms(pod, result.pod, result.patch);
  for (const e of result.status.undo ?? []) {
    // Whole spec/metadata entries would mean the fine-grained undo fell back to its safety net.
    assert.ok(e.p !== '/spec' && !(e.p === '/metadata' && isPlainObject(e.v)), `coarse undo entry ${JSON.stringify(e)}`);
  }
  const names = [...namesOf(result.pod, 'initContainers'), ...namesOf(result.pod, 'containers')];
  assert.equal(new Set(names).size, names.length, `duplicate container names: ${names.join(', ')}`);
  const again = injectPod(cloneJson(result.pod), ctx, config);
  assert.equal(again.kind, 'injected');
  assert.deepEqual((again as InjectedResult).pod, result.pod, 're-injection changed the pod');
  assert.deepEqual((again as InjectedResult).patch, [], 're-injection produced a patch');
  const undone = uninjectPod(result.pod, config);
  assert.equal(undone.kind, 'uninjected');
  if (undone.kind === 'uninjected') {
    assert.deepEqual(undone.pod, original, 'uninject(inject(x)) is not x');
    assertPatchTransforms(result.pod, undone.pod, undone.patch);
  }
  return result;
}
