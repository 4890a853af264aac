import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { templatesConfig } from '../../test/support/inject-fixtures.js';
import { selectTemplates } from './select.js';

const config = templatesConfig({ a: 'spec: {}', b: 'spec: {}', c: 'spec: {}' }, { defaultTemplates: ['a', 'pair'], aliases: { pair: ['b', 'c'] } });
const key = 'inject.istio.io/templates';

describe('selectTemplates', () => {
  it('uses defaultTemplates, expanding aliases in place', () => {
    assert.deepEqual(selectTemplates({}, config), { names: ['a', 'b', 'c'], source: 'defaultTemplates' });
  });

  it('uses the annotation when present: comma list, trimmed, empty entries ignored, order kept', () => {
    assert.deepEqual(selectTemplates({ [key]: ' c , a,,' }, config).names, ['c', 'a']);
    assert.deepEqual(selectTemplates({ [key]: 'pair,a' }, config).names, ['b', 'c', 'a']);
  });

  it('expands aliases one level only, as Istio: an alias of an alias is a missing template', () => {
    // The config loader refuses such aliases; a hand-made config shows the core's own rule.
    const raw = { ...config, aliases: { ...config.aliases, loop: ['pair'] } };
    assert.throws(
      () => selectTemplates({ [key]: 'loop' }, raw),
      (err: Error & { code?: string }) => err.code === 'SI_INJECT_TEMPLATE_MISSING' && /template "pair" \(from alias "loop"\)/.test(err.message),
    );
  });

  it('names every known template and alias when one is missing', () => {
    assert.throws(
      () => selectTemplates({ [key]: 'nope' }, config),
      /template "nope" requested by annotation inject\.istio\.io\/templates is not defined; known templates: a, b, c; aliases: pair/,
    );
    assert.throws(() => selectTemplates({ [key]: ' , ' }, config), /names no template/);
  });
});
