import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { InputError } from '../errors.js';
import { generateManifest } from '../../test/support/manifest-fixtures.js';
import { readManifest, type ManifestDocument } from './documents.js';
import { writeManifest } from './write.js';

const fixture = (name: string): Buffer => readFileSync(new URL(`../../testdata/manifests/${name}`, import.meta.url));
const CONFORMANCE = new URL('../../../shared/conformance/istio/inject/', import.meta.url);

function readError(input: string | Uint8Array, source = 'in.yaml'): InputError {
  try {
    readManifest(input, source);
  } catch (err) {
    assert.ok(err instanceof InputError, `expected InputError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected an InputError');
}

const kinds = (docs: ManifestDocument[]): unknown[] => docs.map((d) => (d.value as { kind?: unknown } | null)?.kind ?? null);

describe('readManifest: splitting as kubectl does', () => {
  it('splits on --- lines with comments or spaces after them, keeps empty and comment-only documents', () => {
    const docs = readManifest(fixture('odd-separators.yaml'), 'odd-separators.yaml');
    assert.deepEqual(kinds(docs), [null, 'Service', null, null, 'Deployment', 'ConfigMap']);
    assert.equal(docs[0].separator, '');
    assert.equal(docs[1].separator, '--- # the first document: a Service, passed through untouched\n');
    assert.equal(docs[2].separator, '---   \n');
    assert.equal(docs[2].text, '');
    assert.deepEqual(
      docs.map((d) => d.line),
      [1, 3, 13, 14, 16, 37],
    );
    assert.deepEqual(
      docs.map((d) => d.index),
      [0, 1, 2, 3, 4, 5],
    );
  });

  it('reads values as Kubernetes does (0644 -> 420, "on" stays a string) and keeps `---` inside block scalars', () => {
    const docs = readManifest(fixture('odd-separators.yaml'), 'f');
    const deploy = docs[4].value as any;
    assert.equal(deploy.spec.template.spec.volumes[0].configMap.defaultMode, 420);
    assert.equal(deploy.spec.template.spec.containers[0].env[0].value, 'on');
    assert.equal((docs[5].value as any).data.script, '#!/bin/sh\necho "---"\n# not a comment: part of the script\n');
  });

  it('gives back every byte: writing unchanged documents reproduces the input exactly', () => {
    for (const name of ['odd-separators.yaml', 'all-kinds.yaml', 'krm-resource-list.yaml']) {
      const bytes = fixture(name);
      assert.equal(writeManifest(readManifest(bytes, name)), bytes.toString('utf8'), name);
    }
  });

  it('handles a leading ---, a trailing ---, and a separator without a final line break', () => {
    const docs = readManifest('---\na: 1\n---\nb: 2\n---', 'f');
    assert.deepEqual(
      docs.map((d) => d.value),
      [{ a: 1 }, { b: 2 }, null],
    );
    assert.equal(writeManifest(docs), '---\na: 1\n---\nb: 2\n---');
    assert.deepEqual(
      docs.map((d) => d.line),
      [2, 4, 6],
    );
  });

  it('reads CRLF files, reports their lines, and writes them back unchanged', () => {
    const text = 'a: 1\r\n--- # c\r\nkind: Service\r\nmetadata:\r\n  name: x\r\n---\r\nb: [1,\r\n';
    const err = readError(text);
    assert.equal(err.location?.document, 2);
    assert.ok((err.location?.line ?? 0) >= 7, String(err.location?.line));
    const ok = text.replace('b: [1,\r\n', 'b: [1]\r\n');
    const docs = readManifest(ok, 'f');
    assert.equal(docs[0].eol, '\r\n');
    assert.deepEqual(
      docs.map((d) => d.value),
      [{ a: 1 }, { kind: 'Service', metadata: { name: 'x' } }, { b: [1] }],
    );
    assert.equal(writeManifest(docs), ok);
  });

  it('accepts a UTF-8 byte-order mark, also before a leading ---', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('---\nkind: Service\n')]);
    const docs = readManifest(bytes, 'f');
    assert.deepEqual(kinds(docs), ['Service']);
    assert.equal(writeManifest(docs), '\ufeff---\nkind: Service\n');
    assert.deepEqual(readManifest('\ufeffkind: Pod\n', 'f')[0].value, { kind: 'Pod' });
  });

  it('rejects text after --- (kubectl does too), naming the line', () => {
    const err = readError('a: 1\n--- |\n  text\n', 'x.yaml');
    assert.equal(err.code, 'SI_INPUT_YAML');
    assert.match(err.message, /invalid document separator "--- \|"/);
    assert.deepEqual(err.location, { file: 'x.yaml', document: 1, line: 2, column: 4 });
    assert.match(readError('----\n').message, /document separator/);
  });

  it('ends a document at `...`; only comments may follow it, since kubectl would ignore the rest', () => {
    const docs = readManifest('a: 1\n...\n# fine\n---\nb: 2\n', 'f');
    assert.deepEqual(
      docs.map((d) => d.value),
      [{ a: 1 }, { b: 2 }],
    );
    const err = readError('a: 1\n...\nb: 2\n');
    assert.match(err.message, /after the document end marker/);
    assert.equal(err.location?.line, 3);
  });

  it('reports a malformed document with its index and its line in the whole file', () => {
    const text = 'kind: A\n---\nkind: B\n---\n# third\nkind: C\nmetadata:\n  name: [oops\n---\nkind: D\n';
    const err = readError(text, 'multi.yaml');
    assert.equal(err.code, 'SI_INPUT_YAML');
    assert.equal(err.location?.file, 'multi.yaml');
    assert.equal(err.location?.document, 2);
    assert.ok(err.location?.line !== undefined && err.location.line >= 8 && err.location.line <= 9, String(err.location?.line));
    assert.match(err.describe(), /^multi\.yaml: document 3, line \d+/);
  });

  it('rejects YAML directives, which kubectl cannot read either', () => {
    const err = readError('# c\n%YAML 1.1\n---\na: 1\n');
    assert.match(err.message, /directives/);
    assert.deepEqual([err.location?.document, err.location?.line], [0, 2]);
  });

  it('reads an empty input as one empty document', () => {
    const docs = readManifest('', 'f');
    assert.equal(docs.length, 1);
    assert.equal(docs[0].value, null);
    assert.equal(writeManifest(docs), '');
  });

  it('rejects UTF-16 and invalid UTF-8 with a clear message', () => {
    assert.match(readError(Buffer.from([0xff, 0xfe, 0x61, 0x00])).message, /UTF-16/);
    const bad = readError(Buffer.concat([Buffer.from('a: 1\nb: '), Buffer.from([0xc3, 0x28]), Buffer.from('\n')]));
    assert.match(bad.message, /not valid UTF-8 \(byte 8\)/);
    assert.equal(bad.location?.line, 2);
    const cut = readError(Buffer.concat([Buffer.from('a: é\nb: x\nc: '), Buffer.from([0xe2, 0x82])]));
    assert.match(cut.message, /byte 14/);
    assert.equal(cut.location?.line, 3);
    assert.match(readError(Buffer.from([0x61, 0x3a, 0x20, 0xed, 0xa0, 0x80])).message, /byte 3/); // an encoded surrogate
  });
});

describe('readManifest: JSON streams', () => {
  it('reads concatenated JSON objects as documents, byte for byte', () => {
    const text = ' {"kind": "Pod", "metadata": {"name": "a"}}\n{"kind":"Service"}{"kind": "List", "items": []}\n\n';
    const docs = readManifest(text, 'f.json');
    assert.deepEqual(kinds(docs), ['Pod', 'Service', 'List']);
    assert.ok(docs.every((d) => d.format === 'json'));
    assert.equal(writeManifest(docs), text);
    assert.deepEqual(
      docs.map((d) => d.line),
      [1, 1, 2],
    );
  });

  it('keeps JSON strings JSON: "0644" and "yes" stay strings, 0644-like YAML rules do not apply', () => {
    const docs = readManifest('{"a": "0644", "b": "yes", "c": 1.0, "d": null}', 'f');
    assert.deepEqual(docs[0].value, { a: '0644', b: 'yes', c: 1, d: null });
  });

  it('reports JSON syntax errors with document, line and column', () => {
    const err = readError('{"kind": "A"}\n{"kind": "B",\n  "x": }\n', 'f.json');
    assert.equal(err.code, 'SI_INPUT_YAML');
    assert.deepEqual(err.location, { file: 'f.json', document: 1, line: 3, column: 8 });
  });

  it('caps JSON nesting and flags integers beyond 2^53', () => {
    assert.equal(readError('{"a":' + '['.repeat(10_000) + ']'.repeat(10_000) + '}').code, 'SI_INPUT_LIMIT');
    assert.deepEqual(readManifest('{"big": 12345678901234567890}', 'f')[0].inexactIntegers, ['12345678901234567890']);
  });

  it('reads JSON inside a YAML stream as YAML (as kubectl does)', () => {
    const docs = readManifest('kind: A\n---\n{"kind": "B", "mode": 0644}\n', 'f');
    assert.deepEqual(
      docs.map((d) => d.value),
      [{ kind: 'A' }, { kind: 'B', mode: 420 }],
    );
    assert.equal(docs[1].format, 'yaml');
  });
});

describe('readManifest: real inputs', () => {
  it('reads every Istio injection input and writes it back byte for byte', { skip: !existsSync(CONFORMANCE) && 'shared conformance data absent' }, () => {
    let files = 0;
    for (const name of readdirSync(CONFORMANCE)) {
      if (!name.endsWith('.yaml')) continue;
      const bytes = readFileSync(new URL(name, CONFORMANCE));
      const docs = readManifest(bytes, name);
      assert.equal(writeManifest(docs), bytes.toString('utf8'), name);
      files++;
    }
    assert.ok(files > 50, `only ${files} inputs found`);
  });

  it('reads 1,000 generated documents (3.8 MB) in well under 10 s (complexity guard)', () => {
    const text = generateManifest(1000);
    const started = performance.now();
    const docs = readManifest(text, 'm1000.yaml');
    const elapsed = performance.now() - started;
    assert.equal(docs.length, 1000);
    assert.equal((docs[998].value as any).spec.template.spec.volumes[0].configMap.defaultMode, 420);
    assert.ok(elapsed < 10_000, `took ${elapsed} ms`);
  });
});
