import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import jsyaml from 'js-yaml';
import YAML from 'yaml';
import { deepEqual, type JsonValue } from '../util/json.js';
import { formatNumber, stringifyObject } from './emit.js';
import { parseYamlDocument } from './read.js';

const ours = (text: string): unknown => parseYamlDocument(text).value;

/** Strings built from pieces that trip YAML writers: type words, indicators, breaks, odd characters. */
const hostileString: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'yes',
        'no',
        'on',
        'off',
        'y',
        'N',
        'true',
        'False',
        'null',
        'Null',
        '~',
        '',
        '0644',
        '0',
        '-0',
        '1.0',
        '1e3',
        '0x1F',
        '0o17',
        '1_000',
        '.inf',
        '.nan',
        '1:20',
        '2001-12-14',
        '<<',
        '=',
        '-',
        '- ',
        '--',
        '---',
        '...',
        ':',
        ': ',
        ' :',
        '#',
        ' #',
        '?',
        '? ',
        ',',
        '[',
        ']',
        '{',
        '}',
        '&a',
        '*a',
        '!',
        '!!str',
        '|',
        '>',
        '%',
        '@',
        '`',
        '"',
        "'",
        '\\',
        ' ',
        '  ',
        '\t',
        '\n',
        '\n\n',
        '\r',
        '\r\n',
        'é',
        '😀',
        '\u0085',
        '\u2028',
        '\ufeff',
        '\u0000',
        '\u0007',
        '\u007f',
        '\u009f',
        'a',
        'key',
        'value',
        '12',
        '3.5',
      ),
      fc.string({ maxLength: 6 }),
      fc.integer().map(String),
    ),
    { maxLength: 4 },
  )
  .map((parts) => parts.join(''));

const jsonValue: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc
      .array(
        fc.tuple(
          hostileString.filter((k) => k !== '__proto__'),
          tie('value'),
        ),
        { maxLength: 4 },
      )
      .map((entries) => Object.fromEntries(entries) as JsonValue),
  ),
})).value;

describe('stringifyObject: Kubernetes-style YAML', () => {
  it('writes block style, 2-space indent, sequences at their key, keys in the given order', () => {
    const text = stringifyObject({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', labels: { app: 'web' }, annotations: {} },
      spec: { containers: [{ name: 'app', image: 'nginx:1.25', args: ['--port=80', '-v'], ports: [{ containerPort: 80 }] }], volumes: [] },
    });
    assert.equal(
      text,
      [
        'apiVersion: v1',
        'kind: Pod',
        'metadata:',
        '  name: web',
        '  labels:',
        '    app: web',
        '  annotations: {}',
        'spec:',
        '  containers:',
        '  - name: app',
        '    image: nginx:1.25',
        '    args:',
        '    - --port=80',
        '    - -v',
        '    ports:',
        '    - containerPort: 80',
        '  volumes: []',
        '',
      ].join('\n'),
    );
  });

  it('quotes every string a YAML 1.1 or 1.2 reader could misread', () => {
    const text = stringifyObject({
      a: 'yes',
      b: 'on',
      c: '0644',
      d: '1.0',
      e: '*',
      f: '~',
      g: ' lead',
      h: 'trail ',
      i: '',
      j: 'a: b',
      k: 'x #y',
      l: '2001-12-14',
      m: '1:20',
      n: '<<',
      o: '- x',
      p: '@x',
      q: 'tab\there',
    });
    assert.equal(
      text,
      "a: 'yes'\nb: 'on'\nc: '0644'\nd: '1.0'\ne: '*'\nf: '~'\ng: ' lead'\nh: 'trail '\ni: ''\nj: 'a: b'\nk: 'x #y'\nl: '2001-12-14'\nm: '1:20'\n'n': '<<'\no: '- x'\np: '@x'\nq: \"tab\\there\"\n",
    );
  });

  it('quotes keys that would change meaning (on -> true, 0644 -> 420)', () => {
    assert.equal(stringifyObject({ on: 1, '0644': 2, y: 3, plain: 4 }), "'on': 1\n'0644': 2\n'y': 3\nplain: 4\n");
  });

  it('writes multi-line strings as literal blocks with the right chomping, else escaped', () => {
    assert.equal(stringifyObject({ s: 'line1\nline2\n' }), 's: |\n  line1\n  line2\n');
    assert.equal(stringifyObject({ s: 'line1\nline2' }), 's: |-\n  line1\n  line2\n');
    assert.equal(stringifyObject({ s: 'kept\n\n' }), 's: |+\n  kept\n\n');
    assert.equal(stringifyObject({ s: ' indented\nfirst' }), 's: " indented\\nfirst"\n');
    assert.equal(stringifyObject({ s: 'cr\r\nlf' }), 's: "cr\\r\\nlf"\n');
    assert.equal(stringifyObject(['a\nb']), '- |-\n  a\n  b\n');
  });

  it('writes numbers so YAML 1.1 readers also see numbers', () => {
    assert.equal(formatNumber(1e21), '1.0e+21');
    assert.equal(formatNumber(1e-7), '1.0e-7');
    assert.equal(formatNumber(0.5), '0.5');
    assert.equal(formatNumber(-0), '0');
    assert.throws(() => formatNumber(NaN), TypeError);
    for (const n of [1e21, 1e-7, 1.5e300, -2.5e-10]) {
      assert.equal(YAML.parse(`v: ${formatNumber(n)}`, { version: '1.1' }).v, n);
      assert.equal(ours(`v: ${formatNumber(n)}`) && (ours(`v: ${formatNumber(n)}`) as { v: number }).v, n);
    }
  });

  it('uses CRLF when asked', () => {
    assert.equal(stringifyObject({ a: { b: 'x\ny' } }, { eol: '\r\n' }), 'a:\r\n  b: |-\r\n    x\r\n    y\r\n');
  });

  it('writes keys too long for an implicit key as explicit `? key` entries', () => {
    const key = 'k'.repeat(1500);
    const value = { [key]: { nested: [1, 'two'] }, short: 'x' };
    const text = stringifyObject(value);
    assert.match(text, /^\? /);
    assert.deepEqual(ours(text), value);
    assert.deepEqual(YAML.parse(text, { version: '1.1' }), value);
  });

  it('round-trips any JSON value through our reader, the yaml package (1.1 and 1.2) and js-yaml (property)', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        const normal = JSON.parse(JSON.stringify(value)) as JsonValue; // -0 -> 0 as in JSON
        const text = stringifyObject(value);
        const readers: Array<[string, () => unknown]> = [
          ['ours', () => ours(text)],
          ['yaml 1.1', () => YAML.parse(text, { version: '1.1' })],
          ['yaml 1.2', () => YAML.parse(text)],
          ['js-yaml', () => jsyaml.load(text)],
        ];
        for (const [name, read] of readers) {
          const back = read();
          if (!deepEqual(back, normal)) {
            assert.fail(`${name} read back something else.\nvalue: ${JSON.stringify(normal)}\ntext:\n${text}\nread: ${JSON.stringify(back)}`);
          }
        }
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 3000) },
    );
  });
});
