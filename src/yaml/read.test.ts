import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputError } from '../errors.js';
import { parseYamlDocument, MAX_DEPTH } from './read.js';

const parse = (text: string, opts = {}) => parseYamlDocument(text, opts).value;

function inputError(fn: () => unknown): InputError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof InputError, `expected InputError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected an InputError');
}

describe('parseYamlDocument: data as Kubernetes reads it', () => {
  it('reads YAML 1.1 values like kubectl: octal modes, yes/on booleans, timestamps as strings', () => {
    const v = parse(`
volumes:
- configMap:
    defaultMode: 0644
flags: {a: yes, b: on, c: off, d: "yes", e: y}
created: 2001-12-14
port: "8080"
ratio: 1.0
version: 1:20
`);
    assert.deepEqual(v, {
      volumes: [{ configMap: { defaultMode: 420 } }],
      flags: { a: true, b: true, c: false, d: 'yes', e: true },
      created: '2001-12-14',
      port: '8080',
      ratio: 1,
      version: '1:20',
    });
  });

  it('turns non-string keys into the strings sigs.k8s.io/yaml makes of them', () => {
    assert.deepEqual(parse('on: a\n0644: b\n1.5: c\n1e6: d\nno: e'), { true: 'a', 420: 'b', '1.5': 'c', '1e+06': 'd', false: 'e' });
    // `y` is a boolean too: `y: 1` and `true: 2` are the same key
    assert.match(inputError(() => parse('y: 1\ntrue: 2')).message, /duplicate key/);
  });

  it('applies explicit tags as go-yaml does', () => {
    assert.deepEqual(parse('a: !!str 0644\nb: !!int "12"\nc: !!float 3\nd: !!bool "on"\ne: !custom 0644\nf: !!binary aGk=\ng: !!null'), {
      a: '0644',
      b: 12,
      c: 3,
      d: true,
      e: '0644', // an unknown tag is ignored: the text stays
      f: 'hi',
      g: null,
    });
    const err = inputError(() => parse('a: !!int 1.5', { startLine: 7 }));
    assert.equal(err.code, 'SI_INPUT_YAML');
    assert.equal(err.location?.line, 7);
  });

  it('expands anchors, aliases and merge keys (go-yaml order: later keys win, in a list earlier maps win)', () => {
    const v = parse(`
base: &base {cpu: 100m, memory: 1Gi}
extra: &extra {memory: 2Gi, gpu: 1}
a:
  <<: *base
  cpu: 200m
b:
  <<: [*base, *extra]
c: *base
`);
    assert.deepEqual(v, {
      base: { cpu: '100m', memory: '1Gi' },
      extra: { memory: '2Gi', gpu: 1 },
      a: { cpu: '200m', memory: '1Gi' },
      b: { gpu: 1, memory: '1Gi', cpu: '100m' },
      c: { cpu: '100m', memory: '1Gi' },
    });
  });

  it('copies aliased values, so editing one use never edits another', () => {
    const v = parse('first: &c {name: a}\nsecond: *c') as { first: { name: string }; second: { name: string } };
    v.second.name = 'changed';
    assert.equal(v.first.name, 'a');
  });

  it('rejects a key written before a merge that overrides it (tools disagree), unless duplicates are allowed', () => {
    const text = 'a: 1\n<<: {a: 2}';
    const err = inputError(() => parse(text, { startLine: 3 }));
    assert.match(err.message, /key "a" is written before the merge key/);
    assert.equal(err.location?.line, 4); // the `<<` line
    assert.deepEqual(parse(text, { duplicateKeys: 'last' }), { a: 2 }); // what kubectl does
  });

  it('rejects duplicate keys by default with the key and real line; `last` keeps the last like kubectl', () => {
    const text = 'metadata:\n  name: a\n  labels: {x: "1"}\n  name: b\n';
    const err = inputError(() => parse(text, { file: 'app.yaml', document: 2, startLine: 10 }));
    assert.equal(err.code, 'SI_INPUT_YAML');
    assert.match(err.message, /duplicate key "name"/);
    assert.deepEqual(err.location, { file: 'app.yaml', document: 2, line: 13, column: 3 });
    assert.deepEqual(parse(text, { duplicateKeys: 'last' }), { metadata: { name: 'b', labels: { x: '1' } } });
  });

  it('reports syntax errors at their line in the whole file', () => {
    const err = inputError(() => parse('a: 1\nb: [1, 2\nc: 3\n', { file: 'f.yaml', document: 4, startLine: 20 }));
    assert.equal(err.code, 'SI_INPUT_YAML');
    assert.equal(err.location?.file, 'f.yaml');
    assert.equal(err.location?.document, 4);
    assert.ok(err.location?.line !== undefined && err.location.line >= 21 && err.location.line <= 23, String(err.location?.line));
    assert.match(err.describe(), /^f\.yaml: document 5, line \d+/);
  });

  it('rejects values JSON cannot carry, and null keys, naming the path and line', () => {
    const nan = inputError(() => parse('spec:\n  replicas: .nan\n', { startLine: 5 }));
    assert.match(nan.message, /at spec\.replicas: \.nan is not a number JSON can carry/);
    assert.equal(nan.location?.line, 6);
    const nullKey = inputError(() => parse('labels:\n  ~: x\n', { startLine: 1 }));
    assert.match(nullKey.message, /key is null/);
    assert.equal(nullKey.location?.line, 2);
  });

  it('keeps __proto__ as data and never touches prototypes', () => {
    const v = parse('__proto__: {polluted: true}\nmetadata:\n  __proto__: x') as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(v), Object.prototype);
    assert.deepEqual(Object.keys(v), ['__proto__', 'metadata']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('flags integers that a JS number cannot hold exactly', () => {
    const r = parseYamlDocument('a: 9223372036854775807\nb: 12');
    assert.deepEqual(r.inexactIntegers, ['9223372036854775807']);
  });

  it('rejects Unicode line separators that YAML 1.1 and 1.2 read differently', () => {
    const err = inputError(() => parse('a: b\u2028c', { startLine: 3 }));
    assert.match(err.message, /U\+2028/);
    assert.equal(err.location?.line, 3);
  });

  it('reads an empty or comment-only text as null', () => {
    assert.equal(parse(''), null);
    assert.equal(parse('# nothing\n'), null);
  });
});

describe('parseYamlDocument: hostile input gets a clear error, quickly, with bounded memory', () => {
  it('stops a billion-laughs bomb with SI_INPUT_LIMIT', () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 10; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const started = Date.now();
    const err = inputError(() => parse(levels.join('\n'), { file: 'bomb.yaml', document: 0, startLine: 1 }));
    assert.equal(err.code, 'SI_INPUT_LIMIT');
    assert.match(err.message, /aliases/);
    assert.ok(Date.now() - started < 5000, 'the bomb was stopped early, not expanded');
  });

  it('stops quadratic merge-key chains', () => {
    const lines = ['k0: &k0 {a0: 0}'];
    for (let i = 1; i < 3000; i++) lines.push(`k${i}: &k${i} {<<: *k${i - 1}, a${i}: ${i}}`);
    const err = inputError(() => parse(lines.join('\n')));
    assert.equal(err.code, 'SI_INPUT_LIMIT');
  });

  it('rejects deep nesting without a stack overflow (flow, block, and through aliases)', () => {
    const flow = inputError(() => parse('['.repeat(100_000) + ']'.repeat(100_000)));
    assert.equal(flow.code, 'SI_INPUT_LIMIT');
    let block = '';
    for (let i = 0; i < MAX_DEPTH + 10; i++) block += `${' '.repeat(i)}a:\n`;
    assert.equal(inputError(() => parse(block)).code, 'SI_INPUT_LIMIT');
    const chain = ['a0: &a0 [x]'];
    for (let i = 1; i < MAX_DEPTH + 10; i++) chain.push(`a${i}: &a${i} [*a${i - 1}]`);
    assert.equal(inputError(() => parse(chain.join('\n'))).code, 'SI_INPUT_LIMIT');
  });

  it('accepts nesting up to the limit', () => {
    const depth = MAX_DEPTH - 1;
    assert.ok(Array.isArray(parse('['.repeat(depth) + ']'.repeat(depth))));
  });

  it('rejects an anchor that contains itself', () => {
    const err = inputError(() => parse('a: &a [1, *a]'));
    assert.match(err.message, /contains an alias to itself/);
  });

  it('rejects an undefined alias with its line', () => {
    const err = inputError(() => parse('a: 1\nb: *nope', { startLine: 40 }));
    assert.equal(err.location?.line, 41);
  });
});
