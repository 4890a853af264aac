/**
 * The pipeline never emits an image holding `<nil>` or `<no value>` (issue 36, item 7), for any
 * config: a template of the user's own that builds its image from a missing value is refused
 * with SI_INJECT_IMAGE naming the template and the container, by every caller of the core.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { InjectorError } from '../errors.js';
import { templatesConfig } from '../../test/support/inject-fixtures.js';
import { injectPod } from './index.js';
import type { InjectionContext } from './types.js';

const POD = { metadata: { name: 'web', namespace: 'shop' }, spec: { containers: [{ name: 'web', image: 'nginx' }] } };
const CTX: InjectionContext = { namespace: 'shop', mode: 'manual' };

/** A one-template config whose `list` item `name` has `image` (template text). */
function config(image: string, list = 'containers', name = 'side', values: Record<string, unknown> = {}) {
  return templatesConfig(
    { mine: `spec:\n  ${list}:\n  - name: ${name}\n    image: ${image}\n    env:\n    - {name: NOTE, value: "<nil> is fine here"}\n` },
    {},
    values,
  );
}

function refusal(fn: () => unknown): InjectorError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof InjectorError, String(err));
    return err;
  }
  assert.fail('the injection was not refused');
}

describe('an image holding a missing value is refused', () => {
  const ROWS = [
    { what: 'printf of a missing hub: <nil>', image: '{{ printf "%v/proxy:1" .Values.hub }}', list: 'containers', mark: '<nil>', shown: '"<nil>/proxy:1"' },
    { what: 'a missing key: <no value>', image: '"{{ .Values.registry }}/init:1"', list: 'initContainers', mark: '<no value>', shown: '"<no value>/init:1"' },
    { what: 'a missing tag', image: '"r.example/p:{{ .Values.tag }}"', list: 'containers', mark: '<no value>', shown: '"r.example/p:<no value>"' },
  ];
  for (const row of ROWS) {
    it(`${row.what} (${row.list})`, () => {
      const err = refusal(() => injectPod(POD, CTX, config(row.image, row.list)));
      assert.equal(err.code, 'SI_INJECT_IMAGE');
      assert.equal(err.exitCode, 6);
      assert.equal(
        err.message,
        `template "mine": spec.${row.list}[name=side].image: the template printed "${row.mark}" into the image ${row.shown}: a value the image is made of is missing from the values (or misspelt); set it (sidecar-injector config check names the missing keys)`,
      );
      assert.deepEqual(err.details, { template: 'mine', container: 'side', image: JSON.parse(row.shown) });
    });
  }

  it('the webhook refuses it too; with the values set, the same template injects', () => {
    assert.equal(refusal(() => injectPod(POD, { namespace: 'shop', mode: 'webhook' }, config('"{{ .Values.hub }}/p:1"'))).code, 'SI_INJECT_IMAGE');
    const r = injectPod(POD, CTX, config('"{{ .Values.hub }}/p:1"', 'containers', 'side', { hub: 'r.example' }));
    assert.equal(r.kind, 'injected');
  });

  it("only images are judged: <nil> in an env value is the template's business", () => {
    const r = injectPod(POD, CTX, config('busybox'));
    assert.equal(r.kind, 'injected');
  });

  it('unresolvedImages: allow (config check, which reports the image itself) gets the pod', () => {
    const r = injectPod(POD, { ...CTX, unresolvedImages: 'allow' }, config('"{{ .Values.hub }}/p:1"'));
    assert.ok(r.kind === 'injected' && JSON.stringify(r.pod).includes('"image":"<no value>/p:1"'));
  });

  it('property: whatever values a template builds its image from, the injected pod never holds such an image', () => {
    const part = fc.oneof(fc.constant(undefined), fc.constant(null), fc.stringMatching(/^[a-z0-9.]{1,8}$/));
    fc.assert(
      fc.property(part, part, fc.boolean(), (hub, tag, viaPrintf) => {
        const values: Record<string, unknown> = {};
        if (hub !== undefined) values.hub = hub;
        if (tag !== undefined) values.tag = tag;
        const image = viaPrintf ? '{{ printf "%v/app:%v" .Values.hub .Values.tag | quote }}' : '"{{ .Values.hub }}/app:{{ .Values.tag }}"';
        let r;
        try {
          r = injectPod(POD, CTX, config(image, 'containers', 'side', values));
        } catch (err) {
          assert.ok(err instanceof InjectorError && err.code === 'SI_INJECT_IMAGE', String(err));
          assert.ok(typeof hub !== 'string' || typeof tag !== 'string', 'refused only when a part is missing');
          return;
        }
        assert.equal(r.kind, 'injected');
        const images = JSON.stringify(r.kind === 'injected' ? r.pod : {}).match(/"image":"[^"]*"/g) ?? [];
        for (const i of images) assert.ok(!i.includes('<nil>') && !i.includes('<no value>'), i);
      }),
      { numRuns: 200 },
    );
  });
});
