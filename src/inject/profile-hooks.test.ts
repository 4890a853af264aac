/**
 * The hook contract (profile.ts) seen from the pipeline: a recording profile bound to a config
 * that has no other, so what the pipeline does with each hook, when, and with what, is checked
 * without Istio's profile in the way.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../config/load.js';
import type { LoadedConfig } from '../config/types.js';
import { InjectionError } from '../errors.js';
import { cloneJson, type JsonObject } from '../util/json.js';
import { injectPod, renderPodTemplates, uninjectPod } from './index.js';
import type { Profile } from './profile-hooks.js';

const TEMPLATE = 'metadata: {annotations: {seen: "{{ .Extra }}"}}\nspec: {containers: [{name: side, image: "side:1"}]}';

function configWith(...profiles: Profile[]): LoadedConfig {
  const bare = parseConfig(JSON.stringify({ policy: 'enabled', defaultTemplates: ['s'], templates: { s: TEMPLATE } }));
  return Object.freeze({ ...bare, profiles });
}

function pod(): JsonObject {
  return { metadata: { name: 'web', namespace: 'shop', annotations: { keep: 'me' } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } };
}

/** A profile that records every call and adds `.Extra`. */
function recorder(calls: string[], options: { holdFirst?: boolean; refuse?: boolean } = {}): Profile {
  return {
    name: 'recorder',
    validate(annotations) {
      calls.push(`validate ${Object.keys(annotations).join(',')}`);
      if (options.refuse) throw new InjectionError('SI_INJECT_ANNOTATION', 'refused by the recorder');
    },
    strip(p, removed) {
      calls.push(`strip ${removed.containers.map((c) => c.name).join(',')} from ${p.spec.containers.map((c) => c.name).join(',')}`);
    },
    forPod(input) {
      calls.push(`forPod ${input.namespace} ${input.pod.spec.containers.length}`);
      return {
        holdFirst: options.holdFirst,
        templateFields(fields) {
          calls.push(`templateFields ${fields.map((f) => f.name).join(',')}`);
          return [...fields, { name: 'Extra', get: () => 'from the profile' }];
        },
        postProcess(merged, user) {
          calls.push(`postProcess user=${user.spec.containers.length} merged=${(merged.spec as { containers: unknown[] }).containers.length}`);
          (merged.metadata as Record<string, Record<string, string>>).annotations.post = 'processed';
        },
      };
    },
  };
}

describe("the pipeline calls a profile's hooks at their fixed points", () => {
  it('validate, forPod, templateFields, postProcess, in that order, with the documented inputs', () => {
    const calls: string[] = [];
    const input = pod();
    const before = cloneJson(input);
    const r = injectPod(input, { namespace: 'shop', mode: 'webhook' }, configWith(recorder(calls)));
    assert.deepEqual(calls, ['validate keep', 'forPod shop 1', 'templateFields Values,Revision,NativeSidecars', 'postProcess user=1 merged=2']);
    assert.equal(r.kind, 'injected');
    if (r.kind !== 'injected') return;
    const annotations = (r.pod.metadata as { annotations: Record<string, string> }).annotations;
    assert.equal(annotations.seen, 'from the profile', 'a field from templateFields is template data');
    assert.equal(annotations.post, 'processed', 'postProcess changes the merged pod');
    assert.ok(
      r.patch.some((op) => op.path === '/metadata/annotations/post'),
      'and the patch carries it',
    );
    assert.deepEqual(input, before, 'the received pod is never changed');
    assert.deepEqual(
      (r.pod.spec as { containers: { name: string }[] }).containers.map((c) => c.name),
      ['app', 'side'],
    );
  });

  it('holdFirst from any profile puts the injected containers first', () => {
    const r = injectPod(pod(), { namespace: 'shop', mode: 'webhook' }, configWith(recorder([], { holdFirst: true })));
    assert.equal(r.kind, 'injected');
    if (r.kind === 'injected')
      assert.deepEqual(
        (r.pod.spec as { containers: { name: string }[] }).containers.map((c) => c.name),
        ['side', 'app'],
      );
  });

  it('a validate hook that throws refuses the pod before anything is rendered', () => {
    const calls: string[] = [];
    assert.throws(() => injectPod(pod(), { namespace: 'shop', mode: 'webhook' }, configWith(recorder(calls, { refuse: true }))), /refused by the recorder/);
    assert.deepEqual(calls, ['validate keep']);
  });

  it("strip runs only for a status without an undo record (another injector's), after its items are removed", () => {
    const calls: string[] = [];
    const config = configWith(recorder(calls));
    const ours = injectPod(pod(), { namespace: 'shop', mode: 'manual' }, config);
    assert.equal(ours.kind, 'injected');
    if (ours.kind !== 'injected') return;
    calls.length = 0;
    uninjectPod(ours.pod, config);
    assert.deepEqual(calls, [], 'our own status is undone by its record');
    const foreign = cloneJson(ours.pod);
    const meta = foreign.metadata as { annotations: Record<string, string> };
    meta.annotations['sidecar.istio.io/status'] = JSON.stringify({
      containers: ['side'],
      initContainers: null,
      volumes: null,
      imagePullSecrets: null,
      revision: 'default',
    });
    const r = uninjectPod(foreign, config);
    assert.equal(r.kind, 'uninjected');
    assert.deepEqual(calls, ['strip side from app']);
  });

  it('renderPodTemplates renders with the same data (profile fields included)', () => {
    const [{ overlay }] = renderPodTemplates(pod(), { namespace: 'shop', mode: 'manual' }, configWith(recorder([])));
    assert.equal((overlay.metadata as { annotations: Record<string, string> }).annotations.seen, 'from the profile');
  });

  it('with no profile the core alone injects: its own fields only', () => {
    const bare = configWith();
    assert.throws(() => injectPod(pod(), { namespace: 'shop', mode: 'webhook' }, bare), /can't evaluate field Extra/);
  });
});
