/**
 * Property tests of the injection core on generated pods: for every pod, under the built-in
 * config and a config whose template also edits the user's containers and metadata, the patch
 * applies under fast-json-patch, rfc6902 and our applier and gives the result pod; injecting the
 * result again changes nothing; uninjecting it gives the input back; container names stay
 * unique; the input is never mutated.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { defaultConfig } from '../profiles/index.js';
import type { LoadedConfig } from '../config/types.js';
import { InjectorError } from '../errors.js';
import { podArb } from '../../test/support/inject-arbitraries.js';
import { injectChecked, templatesConfig } from '../../test/support/inject-fixtures.js';
import type { InjectionContext } from './types.js';

/** A template that touches everything: user containers (env, probes), labels, annotations, volumes, a native sidecar. */
const EDITING = templatesConfig(
  {
    edit: [
      'metadata:',
      '  labels:',
      '    app: injected',
      '    "mesh/member": "true"',
      '  annotations:',
      '    "a~b/c": {{ len .Spec.Containers | quote }}',
      'spec:',
      '  serviceAccountName: mesh',
      '  initContainers:',
      '  - name: mesh-init',
      '    image: init:1',
      '  - name: mesh-proxy',
      '    image: proxy:1',
      '    restartPolicy: Always',
      '  containers:',
      '  {{- range .Spec.Containers }}',
      '  - name: {{ .Name }}',
      '    env:',
      '    - name: MESH',
      '      value: "on"',
      '  {{- end }}',
      '  volumes:',
      '  - name: mesh-certs',
      '    emptyDir: {}',
      '  - name: data',
      '    emptyDir:',
      '      medium: Memory',
    ].join('\n'),
  },
  {},
);

const configs: [string, LoadedConfig, string[]][] = [
  ['the built-in config', defaultConfig(), ['sidecar-proxy', 'proxy-init']],
  ['an editing template with a native sidecar', EDITING, ['mesh-proxy', 'mesh-init']],
];

const ctxArb: fc.Arbitrary<InjectionContext> = fc.oneof(
  fc.constant<InjectionContext>({ namespace: 'shop', mode: 'webhook' }),
  fc.constant<InjectionContext>({ namespace: 'shop', mode: 'manual', owner: { kind: 'Deployment', name: 'shop', apiVersion: 'apps/v1' } }),
);

describe('injection properties on generated pods', () => {
  for (const [name, config, sidecars] of configs) {
    it(`${name}: patch applies, idempotent, uninject round trip, unique names, input untouched`, () => {
      fc.assert(
        fc.property(podArb({ sidecarNames: sidecars }), ctxArb, (pod, ctx) => {
          try {
            injectChecked(pod, ctx, config);
          } catch (err) {
            // A user init container named like an injected container is a documented conflict.
            if (err instanceof InjectorError && err.code === 'SI_INJECT_CONFLICT') return;
            throw err;
          }
        }),
        { numRuns: 300 },
      );
    });
  }

  it('re-injecting any injected pod with another config leaves one copy of each injected container and still round-trips', () => {
    fc.assert(
      fc.property(podArb(), (pod) => {
        const ctx: InjectionContext = { namespace: 'shop', mode: 'webhook' };
        let first;
        try {
          first = injectChecked(pod, ctx, defaultConfig());
        } catch (err) {
          if (err instanceof InjectorError && err.code === 'SI_INJECT_CONFLICT') return;
          throw err;
        }
        const second = injectChecked(first.pod, ctx, EDITING, pod);
        const names = (second.pod.spec as { containers: { name: string }[] }).containers.map((c) => c.name);
        assert.ok(!names.includes('sidecar-proxy'), 'the old sidecar is gone');
      }),
      { numRuns: 150 },
    );
  });
});
