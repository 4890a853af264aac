/**
 * The config reader (read-config.ts, on the `yaml` library) and the manifest reader (read.ts, on
 * js-yaml) type every plain scalar by the one rule table, so a value means the same in
 * `--config` as in `inject -f`, and the same as in the cluster. The table is go-yaml v2 as
 * sigs.k8s.io/yaml uses it (kubectl, the apiserver, Istio, Helm: YAML 1.1 flavoured); the `v3`
 * column says where go-yaml v3 (closer to YAML 1.2 core) reads the same text differently, which
 * is why a file checked with a v3-based tool can still mean something else to Kubernetes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputError } from '../errors.js';
import { yamlReference } from '../../test/support/yaml-ref.js';
import type { JsonValue } from '../util/json.js';
import { stringifyObject } from './emit.js';
import { resolvesToString } from './go-quote.js';
import { readPlainBlockYaml } from './plain-block.js';
import { parseYamlDocument } from './read.js';
import { parseKubeYaml, parseKubeYamlStream } from './read-config.js';

interface Row {
  /** The scalar as written after `v: `. */
  readonly text: string;
  /** What sigs.k8s.io/yaml (go-yaml v2) decodes. A non-finite number is not JSON: kubectl refuses it. */
  readonly v2: JsonValue | typeof Infinity;
  /** go-yaml v3's reading, where it differs from v2. */
  readonly v3?: JsonValue;
}

const TABLE: readonly Row[] = [
  { text: 'yes', v2: true, v3: 'yes' },
  { text: 'no', v2: false, v3: 'no' },
  { text: 'on', v2: true, v3: 'on' },
  { text: 'off', v2: false, v3: 'off' },
  { text: 'y', v2: true, v3: 'y' },
  { text: 'n', v2: false, v3: 'n' },
  { text: 'Y', v2: true, v3: 'Y' },
  { text: 'NO', v2: false, v3: 'NO' },
  { text: 'True', v2: true },
  { text: 'FALSE', v2: false },
  { text: 'yEs', v2: 'yEs' }, // only the listed spellings are words
  { text: 'truE', v2: 'truE' },
  { text: '~', v2: null },
  { text: 'null', v2: null },
  { text: 'Null', v2: null },
  { text: 'nULL', v2: 'nULL' },
  { text: '', v2: null },
  { text: '0x1F', v2: 31 },
  { text: '+0x1F', v2: 31 },
  { text: '0o17', v2: 15 }, // YAML 1.1 has no 0o; Go's ParseInt (base 0) has
  { text: '017', v2: 15 }, // YAML 1.1 octal; v3 keeps it for compatibility
  { text: '0777', v2: 511 },
  { text: '08', v2: 8 }, // not octal, so decimal
  { text: '0b101', v2: 5 },
  { text: '-0b11', v2: -3 },
  { text: '1e3', v2: 1000 },
  { text: '1E3', v2: 1000 },
  { text: '1.0', v2: 1 },
  { text: '.5', v2: 0.5 },
  { text: '+.5', v2: 0.5 },
  { text: '-.5e-3', v2: -0.0005 },
  { text: '0.', v2: 0 },
  { text: '+1', v2: 1 },
  { text: '-0', v2: 0 },
  { text: '1_000', v2: 1000 }, // go-yaml drops every `_` before parsing a number
  { text: '1__0', v2: 10 },
  { text: '0x_1F', v2: 31 },
  { text: '.inf', v2: Infinity },
  { text: '+.inf', v2: Infinity },
  { text: '-.Inf', v2: -Infinity },
  { text: '.nan', v2: NaN },
  { text: '-.nan', v2: '-.nan' }, // not a word: text
  { text: '1e400', v2: '1e400' }, // ParseFloat overflows: go-yaml keeps the text
  { text: '"123"', v2: '123' },
  { text: "'yes'", v2: 'yes' },
  { text: '!!str 0644', v2: '0644' },
  // timestamps: v2 keeps the text when decoding into interface{}; v3 makes a time.Time, which
  // encoding/json then writes in RFC 3339 (another string)
  { text: '2001-12-14', v2: '2001-12-14', v3: '2001-12-14T00:00:00Z' },
  { text: '2001-12-14T21:59:43.10-05:00', v2: '2001-12-14T21:59:43.10-05:00', v3: '2001-12-14T21:59:43.1-05:00' },
  { text: '1:20', v2: '1:20' }, // YAML 1.1 sexagesimal (80); go-yaml keeps the text
  { text: '190:20:30.15', v2: '190:20:30.15' },
  { text: '9223372036854775807', v2: 9223372036854775807 }, // int64 max (inexact as a JS number)
  { text: '18446744073709551616', v2: 18446744073709551616 }, // beyond uint64: read as a float
  { text: '0xFFFFFFFFFFFFFFFFFF', v2: '0xFFFFFFFFFFFFFFFFFF' }, // beyond uint64, not decimal: text
  { text: '._5', v2: '._5' },
  { text: '.', v2: '.' }, // YAML 1.1 regexes (and the `yaml` library's 1.1 mode) read `.`, `e3`, `.e3` as NaN
  { text: 'e3', v2: 'e3' },
  { text: '.e3', v2: '.e3' },
  { text: '1e', v2: '1e' },
  { text: '0xG', v2: '0xG' },
  { text: '=', v2: '=' }, // the YAML 1.1 "value" key: text to go-yaml
  { text: '<<x', v2: '<<x' },
  { text: '+', v2: '+' },
];

function manifestRead(text: string): unknown {
  return (parseYamlDocument(`v: ${text}\n`).value as { v: unknown }).v;
}

function configRead(text: string): unknown {
  return (parseKubeYaml(`v: ${text}\n`).value as { v: unknown }).v;
}

function streamRead(text: string): unknown {
  const [doc] = parseKubeYamlStream(`v: ${text}\n`);
  return (doc.toJS() as { v: unknown }).v;
}

describe('one rule table: the config reader and the manifest reader agree with go-yaml v2', () => {
  for (const row of TABLE) {
    it(`${JSON.stringify(row.text)} -> ${typeof row.v2 === 'number' ? String(row.v2) : JSON.stringify(row.v2)}${row.v3 !== undefined ? ` (v3: ${JSON.stringify(row.v3)})` : ''}`, () => {
      const expected = row.v2;
      assert.deepEqual(configRead(row.text), expected, 'config reader');
      assert.deepEqual(streamRead(row.text), expected, 'config stream reader');
      if (typeof expected === 'number' && !Number.isFinite(expected)) {
        // Same reading, but a manifest is JSON to the apiserver: refused with the path and line.
        assert.throws(
          () => manifestRead(row.text),
          (e: unknown) =>
            e instanceof InputError && e.code === 'SI_INPUT_YAML' && /at v: .* is not a number JSON can carry/.test(e.message) && e.location?.line === 1,
        );
      } else {
        assert.deepEqual(manifestRead(row.text), expected, 'manifest reader');
      }
    });
  }

  it('every v3 entry names a real difference from v2', () => {
    const differing = TABLE.filter((r) => r.v3 !== undefined);
    assert.ok(differing.length >= 6);
    for (const r of differing) assert.notDeepEqual(r.v3, r.v2, r.text);
  });
});

describe('the table is what go-yaml itself does (when Go and its sources are installed)', () => {
  for (const version of ['v2', 'v3'] as const) {
    const reference = yamlReference(version);
    it(`go-yaml ${version} decodes every row as the ${version} column says`, { skip: typeof reference === 'string' ? reference : false }, () => {
      if (typeof reference === 'string') return;
      const results = reference(TABLE.map((r) => `v: ${r.text}\n`));
      TABLE.forEach((row, i) => {
        const expected = version === 'v3' && row.v3 !== undefined ? row.v3 : row.v2;
        const got = results[i];
        if (typeof expected === 'number' && !Number.isFinite(expected)) {
          // encoding/json refuses NaN and infinities: sigs.k8s.io/yaml fails on them
          assert.match(got.error ?? '', /unsupported value/, row.text);
        } else {
          assert.deepEqual(got, { value: { v: expected } }, row.text);
        }
      });
    });
  }
});

describe('one rule table: both writers quote what a reader would retype', () => {
  for (const row of TABLE) {
    const s = row.text;
    it(`the string ${JSON.stringify(s)} survives the manifest writer and both readers`, () => {
      const written = stringifyObject({ v: s });
      assert.deepEqual((parseYamlDocument(written).value as { v: unknown }).v, s, written);
      assert.deepEqual((parseKubeYaml(written).value as { v: unknown }).v, s, written);
      // toYaml (go-yaml's emitter) writes plain only what go-yaml reads back as the same string
      if (resolvesToString(s) && !/^["'!]/.test(s)) assert.equal(configRead(s), s);
    });
  }
});

/**
 * A block scalar's final line break at the end of the input: go-yaml keeps it only when the text
 * has it. Both libraries read an input without a final break as if it had one, so every reader
 * corrects the scalar that ends the input (read.ts, read-config.ts, plain-block.ts).
 */
const END_OF_INPUT: readonly { text: string; v2: unknown }[] = [
  { text: 'a: |\n  x', v2: { a: 'x' } },
  { text: 'a: |\n  x\n', v2: { a: 'x\n' } },
  { text: 'a: |+\n  x', v2: { a: 'x' } },
  { text: 'a: |-\n  x', v2: { a: 'x' } },
  { text: 'a: >\n  x\n  y', v2: { a: 'x y' } },
  { text: 'a: |\n  x\n\n  y', v2: { a: 'x\n\ny' } },
  { text: 'a: |\n  x\n  ', v2: { a: 'x\n' } },
  { text: 'a: |\n  x\n# c', v2: { a: 'x\n' } },
  { text: 'a:\n- |\n  x', v2: { a: ['x'] } },
  { text: 'a: !!str |\n  x', v2: { a: 'x' } },
  { text: 'a: &z |\n  x', v2: { a: 'x' } },
  { text: 'a: |2\n   x', v2: { a: ' x' } },
  { text: 'a: "x\\n"', v2: { a: 'x\n' } },
  { text: 'b: |\n  x\nc: |\n  y', v2: { b: 'x\n', c: 'y' } },
  { text: 'spec:\n  containers:\n  - name: a\n    args:\n    - |\n      hi', v2: { spec: { containers: [{ name: 'a', args: ['hi'] }] } } },
];

describe("a block scalar at the end of the input keeps go-yaml's final line break, no more", () => {
  for (const row of END_OF_INPUT) {
    it(`${JSON.stringify(row.text)} -> ${JSON.stringify(row.v2)}`, () => {
      assert.deepEqual(parseKubeYaml(row.text).value, row.v2, 'config reader');
      assert.deepEqual(parseKubeYamlStream(row.text)[0].toJS(), row.v2, 'config stream reader');
      assert.deepEqual(parseYamlDocument(row.text).value, row.v2, 'manifest reader');
      const fast = readPlainBlockYaml(row.text);
      if (fast !== undefined) assert.deepEqual(fast, row.v2, 'plain-block reader');
    });
  }
  it('the last document of a stream only: an earlier one ends with its own break', () => {
    const docs = parseKubeYamlStream('a: |\n  x\n---\nb: |\n  y');
    assert.deepEqual(
      docs.map((d) => d.toJS()),
      [{ a: 'x\n' }, { b: 'y' }],
    );
  });
  const reference = yamlReference('v2');
  it('go-yaml v2 decodes every row so', { skip: typeof reference === 'string' ? reference : false }, () => {
    if (typeof reference === 'string') return;
    const results = reference(END_OF_INPUT.map((r) => r.text));
    END_OF_INPUT.forEach((row, i) => assert.deepEqual(results[i], { value: row.v2 }, row.text));
  });
});
