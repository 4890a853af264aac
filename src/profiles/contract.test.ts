/**
 * The profile contract (inject/profile-hooks.ts), checked for every profile of the default set: one
 * shared test, so a new profile is held to the same rules. Whatever a hook may only read is
 * deep-frozen here, so a hook that changes it throws (ES modules are strict).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { defaultConfig as bareDefaultConfig, parseConfig } from '../config/load.js';
import type { Pod } from '../inject/pod-types.js';
import type { TemplateField } from '../inject/profile-hooks.js';
import { cloneJson, type JsonObject } from '../util/json.js';
import { DEFAULT_PROFILES } from './index.js';

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

function pod(): Pod {
  return {
    metadata: { name: 'web', namespace: 'shop', labels: { app: 'web' }, annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090' } },
    spec: {
      containers: [{ name: 'web', image: 'web:1', ports: [{ containerPort: 8080 }], readinessProbe: { httpGet: { path: '/ready', port: 8080 } } }],
      initContainers: [{ name: 'setup', image: 'setup:1' }],
      volumes: [{ name: 'data', emptyDir: {} }],
    },
  };
}

const CORE: TemplateField[] = [
  { name: 'Values', get: () => ({}) },
  { name: 'Revision', get: () => '' },
  { name: 'NativeSidecars', get: () => false },
];

/** The built-in config, and the same with Istio compatibility on (every optional hook of Istio's profile active). */
function configs() {
  const text = (name: string) => readFileSync(new URL(`../../defaults/${name}`, import.meta.url), 'utf8');
  const istio = parseConfig(text('config.yaml').replace(/^compatibility: none$/m, 'compatibility: istio'), text('values.yaml'));
  assert.equal(istio.compatibility.mode, 'istio');
  return [
    ['built-in', bareDefaultConfig()],
    ['built-in, compatibility: istio', istio],
  ] as const;
}

for (const bind of DEFAULT_PROFILES)
  for (const [label, config] of configs()) {
    const profile = bind(config);

    describe(`profile ${profile.name} (${label} config): the hook contract`, () => {
      it('has a name and only the hooks the pipeline knows', () => {
        assert.match(profile.name, /^[a-z][a-z0-9-]*$/);
        for (const key of Object.keys(profile)) assert.ok(['name', 'strip', 'restore', 'validate', 'forPod'].includes(key), `unknown hook ${key}`);
      });

      it('validate and forPod only read the pod and its annotations', () => {
        const p = deepFreeze(pod());
        profile.validate?.(p.metadata!.annotations!);
        const hooks = profile.forPod?.(deepFreeze({ pod: p, annotations: p.metadata!.annotations!, namespace: 'shop', owner: undefined, pathParams: {} }));
        if (hooks === undefined) return;
        for (const key of Object.keys(hooks))
          assert.ok(['templateFields', 'holdFirst', 'initBeforeSidecar', 'leadingInitContainers', 'postProcess'].includes(key), `unknown pod hook ${key}`);
        if (hooks.holdFirst !== undefined) assert.equal(typeof hooks.holdFirst, 'boolean');
        const isNames = (v: unknown) => Array.isArray(v) && v.every((n) => typeof n === 'string');
        if (hooks.leadingInitContainers !== undefined) assert.ok(isNames(hooks.leadingInitContainers));
        if (hooks.initBeforeSidecar !== undefined)
          assert.ok(isNames(hooks.initBeforeSidecar(p.metadata!.annotations!)), 'initBeforeSidecar reads the annotations and gives names');
      });

      it('templateFields keeps every field it is given, in order, and adds only new names', () => {
        const p = deepFreeze(pod());
        const hooks = profile.forPod?.({ pod: p, annotations: p.metadata!.annotations!, namespace: 'shop', owner: undefined, pathParams: {} });
        if (hooks?.templateFields === undefined) return;
        const fields = hooks.templateFields(deepFreeze([...CORE]));
        const names = fields.map((f) => f.name);
        assert.deepEqual(
          names.filter((n) => CORE.some((c) => c.name === n)),
          CORE.map((c) => c.name),
          'the given fields stay, in their order',
        );
        for (const c of CORE)
          assert.equal(
            fields.find((f) => f.name === c.name),
            c,
            `field ${c.name} is passed on unchanged`,
          );
        assert.equal(new Set(names).size, names.length, 'no name twice');
        for (const f of fields) f.get(); // every field can be computed for a plain pod
      });

      it('postProcess changes only the merged pod it is given', () => {
        const p = deepFreeze(pod());
        const hooks = profile.forPod?.({ pod: p, annotations: p.metadata!.annotations!, namespace: 'shop', owner: undefined, pathParams: {} });
        if (hooks?.postProcess === undefined) return;
        const merged = cloneJson(p) as unknown as JsonObject;
        hooks.postProcess(merged, p, deepFreeze({ containers: [], initContainers: [] }));
      });

      it('strip changes only the pod it is given', () => {
        if (profile.strip === undefined) return;
        const p = pod();
        profile.strip(
          p,
          deepFreeze({ containers: [{ name: 'istio-proxy', image: 'proxy', env: [{ name: 'ISTIO_KUBE_APP_PROBERS', value: '{}' }] }], initContainers: [] }),
        );
      });
    });
  }
