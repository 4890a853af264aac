/**
 * What a template reads of its top-level data (reads.ts): the chains the render memo keys on.
 * A chain missed here would let the memo hand one pod another pod's sidecar, so the cases cover
 * every way dot or `$` reaches the data, and every way the data escapes whole (null).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { templateFuncs } from './funcs/index.js';
import { parseTemplate, parseTemplateSet } from './index.js';

const reads = (text: string) => parseTemplate('t', text, { funcs: templateFuncs() }).rootReads();

describe('rootReads', () => {
  it('lists the field chains started at the data, shorter chains covering longer ones', () => {
    assert.deepEqual(reads('{{ .Spec.Containers }}{{ .Spec.Containers.X }}{{ .ObjectMeta.Name }}'), [
      ['Spec', 'Containers'],
      ['ObjectMeta', 'Name'],
    ]);
    assert.deepEqual(reads('{{ .Spec }}{{ .Spec.Containers }}'), [['Spec']]);
    assert.deepEqual(reads('plain text {{/* a comment */}}'), []);
  });

  it('follows pipelines, arguments, parentheses, conditions and else branches', () => {
    assert.deepEqual(reads('{{ annotation .ObjectMeta "k" .Values.d | quote }}'), [['ObjectMeta'], ['Values', 'd']]);
    assert.deepEqual(reads('{{ (index .Spec.Containers 0).Name }}'), [['Spec', 'Containers']]);
    assert.deepEqual(reads('{{ if .A }}{{ .B }}{{ else }}{{ .C }}{{ end }}'), [['A'], ['B'], ['C']]);
    assert.deepEqual(reads('{{ with .A }}{{ .Inner }}{{ else }}{{ .C }}{{ end }}'), [['A'], ['C']]);
    assert.deepEqual(reads('{{ range .A }}{{ .Inner }}{{ $.B }}{{ end }}'), [['A'], ['B']]);
    assert.deepEqual(reads('{{ $x := .A }}{{ $x.Deep }}{{ $.B.C }}'), [['A'], ['B', 'C']]);
  });

  it('a called template sees only the value passed: what it reads is covered by that value', () => {
    const set = parseTemplateSet([['t', '{{ define "x" }}{{ .Anything }}{{ $.Else }}{{ end }}{{ template "x" .Spec }}']], { funcs: templateFuncs() });
    assert.deepEqual(set.lookup('t')!.rootReads(), [['Spec']]);
  });

  it('a template called with the data itself reads for the caller (once, even when it recurses)', () => {
    assert.deepEqual(reads('{{ template "x" . }}{{ define "x" }}{{ .A }}{{ $.B.C }}{{ with .D }}{{ .E }}{{ end }}{{ end }}'), [['A'], ['D'], ['B', 'C']]);
    assert.deepEqual(reads('{{ with .W }}{{ template "x" $ }}{{ end }}{{ define "x" }}{{ .A }}{{ end }}'), [['W'], ['A']]);
    assert.deepEqual(reads('{{ define "r" }}{{ .A }}{{ if .Deeper }}{{ template "r" . }}{{ end }}{{ end }}{{ template "r" . }}'), [['A'], ['Deeper']]);
    // With dot moved, `.` is not the data: the callee reads a derived value.
    assert.deepEqual(reads('{{ range .L }}{{ template "x" . }}{{ end }}{{ define "x" }}{{ .A }}{{ end }}'), [['L']]);
  });

  it('is null when the data escapes whole', () => {
    for (const text of [
      '{{ toJson . }}',
      '{{ . }}',
      '{{ $d := . }}{{ $d.A }}',
      '{{ template "x" . }}{{ define "x" }}{{ . }}{{ end }}',
      '{{ template "missing" . }}',
      '{{ $ }}',
      '{{ with $ }}{{ end }}',
      '{{ (.).A }}',
    ]) {
      assert.equal(reads(text), null, text);
    }
  });

  it('is null when $ is reassigned or a function depends on more than its arguments', () => {
    assert.equal(reads('{{ $ = .A }}{{ $.B }}'), null);
    const withEnv = parseTemplate('t', '{{ env "HOME" "x" }}{{ .A }}', { funcs: { env: templateFuncs().quote } });
    assert.equal(withEnv.rootReads(), null);
  });

  it('dot inside range and with is derived, but $ is still the data', () => {
    assert.deepEqual(reads('{{ range .L }}{{ . }}{{ end }}'), [['L']]);
    assert.equal(reads('{{ range .L }}{{ $ }}{{ end }}'), null);
  });
});
