import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { InputError } from '../errors.js';
import { generateManifest } from '../../test/support/manifest-fixtures.js';
import type { JsonObject } from '../util/json.js';
import { readManifest, type ManifestDocument } from './documents.js';
import { documentText, replaceDocument, writeManifest } from './write.js';

const fixture = (name: string): string => readFileSync(new URL(`../../testdata/manifests/${name}`, import.meta.url), 'utf8');

/** Replace the documents whose kind is `kind` with `edit(value)`. */
function editKind(docs: ManifestDocument[], kind: string, edit: (v: JsonObject) => JsonObject): ManifestDocument[] {
  return docs.map((d) => ((d.value as JsonObject | null)?.kind === kind ? replaceDocument(d, edit(d.value as JsonObject)) : d));
}

describe('writeManifest', () => {
  it('rewrites only replaced documents; the others stay byte for byte, comments and odd separators included', () => {
    const input = fixture('odd-separators.yaml');
    const docs = readManifest(input, 'f');
    const out = writeManifest(editKind(docs, 'Deployment', (v) => ({ ...v, metadata: { name: 'web', labels: { injected: 'true' } } })));
    const deployStart = input.indexOf('apiVersion: apps/v1');
    const deployEnd = input.indexOf('...\n');
    // Everything outside the Deployment's body is unchanged.
    assert.ok(out.startsWith(input.slice(0, deployStart)));
    assert.ok(out.endsWith(input.slice(deployEnd)));
    // The new body is Kubernetes-style YAML of the new value, and reads back as that value.
    const again = readManifest(out, 'f');
    assert.deepEqual((again[4].value as JsonObject).metadata, { name: 'web', labels: { injected: 'true' } });
    assert.equal((again[4].value as any).spec.template.spec.volumes[0].configMap.defaultMode, 420);
    assert.deepEqual(
      again.filter((_, i) => i !== 4).map((d) => d.text),
      docs.filter((_, i) => i !== 4).map((d) => d.text),
    );
  });

  it('keeps leading comments, trailing column-0 comments and a `...` trailer of a replaced document', () => {
    const [doc] = readManifest('# head comment\n\nkind: Pod\nspec: {}\n# tail comment\n...\n# after\n', 'f');
    const text = documentText(replaceDocument(doc, { kind: 'Pod', spec: { x: 1 } }));
    assert.equal(text, '# head comment\n\nkind: Pod\nspec:\n  x: 1\n# tail comment\n...\n# after\n');
  });

  it('does not duplicate an indented `#` line that belongs to a block scalar at the end', () => {
    const [doc] = readManifest('data:\n  s: |\n    echo\n    # part of s\n', 'f');
    const value = doc.value as JsonObject;
    const text = documentText(replaceDocument(doc, value));
    assert.equal(text, 'data:\n  s: |\n    echo\n    # part of s\n');
    assert.equal(text.split('# part of s').length, 2);
  });

  it('writes replaced documents of a CRLF file with CRLF', () => {
    const input = 'kind: A\r\n---\r\nkind: B\r\nlist: [1, 2]\r\n';
    const docs = readManifest(input, 'f');
    // Unchanged lines keep their text (edit in place); the changed part is written with CRLF too.
    const out = writeManifest([docs[0], replaceDocument(docs[1], { kind: 'B', list: [1, 2], more: [3] })]);
    assert.equal(out, 'kind: A\r\n---\r\nkind: B\r\nlist: [1, 2]\r\nmore:\r\n- 3\r\n');
  });

  it('adds a line break after a last document that had none', () => {
    const docs = readManifest('kind: A\n---\nkind: B', 'f');
    assert.equal(writeManifest([docs[0], replaceDocument(docs[1], { kind: 'C' })]), 'kind: A\n---\nkind: C\n');
  });

  it('writes replaced documents of a JSON stream as JSON, keeping the whitespace between them', () => {
    const input = '{"kind": "A"}\n  {"kind": "B"}\n';
    const docs = readManifest(input, 'f.json');
    const out = writeManifest([docs[0], replaceDocument(docs[1], { kind: 'B', n: [1] })]);
    assert.equal(out, '{"kind": "A"}\n  {\n  "kind": "B",\n  "n": [\n    1\n  ]\n}\n');
    assert.deepEqual(
      readManifest(out, 'f').map((d) => d.value),
      [{ kind: 'A' }, { kind: 'B', n: [1] }],
    );
  });

  it('refuses to rewrite a document holding an integer it cannot keep exactly (it may still pass through)', () => {
    const docs = readManifest('kind: A\nbig: 12345678901234567890\n', 'f');
    assert.throws(
      () => replaceDocument(docs[0], docs[0].value),
      (err: unknown) => err instanceof InputError && err.code === 'SI_INPUT_OBJECT' && /12345678901234567890/.test(err.message),
    );
    assert.equal(writeManifest(docs), 'kind: A\nbig: 12345678901234567890\n');
  });

  it('round-trips: replacing every document with its own value gives the same data', () => {
    const docs = readManifest(fixture('all-kinds.yaml'), 'f');
    const again = readManifest(writeManifest(docs.map((d) => replaceDocument(d, d.value))), 'f');
    assert.deepEqual(
      again.map((d) => d.value),
      docs.map((d) => d.value),
    );
  });

  it('re-serialises 500 Deployments of a 1,000-document manifest in well under 10 s (complexity guard)', () => {
    const docs = readManifest(generateManifest(1000), 'm1000.yaml');
    const started = performance.now();
    const out = writeManifest(editKind(docs, 'Deployment', (v) => v));
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 10_000, `took ${elapsed} ms`);
    assert.equal(readManifest(out, 'again').length, 1000);
  });
});
