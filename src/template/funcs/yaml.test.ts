/**
 * @module template/funcs/yaml.test
 * toYaml must write what Istio's toYaml (sigs.k8s.io/yaml: encoding/json, then go-yaml v2)
 * writes. The fixtures below were produced by gopkg.in/yaml.v2 2.4.0 from the same JSON
 * (json.Unmarshal, json.Marshal, yaml.Unmarshal, yaml.Marshal); the property test checks that
 * whatever we emit parses back to the same data with a YAML 1.1 reader.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parse } from 'yaml';
import { goYamlMarshal, yamlKeyLess } from './yaml.js';
import { goJsonUnmarshal } from './json-decode.js';
import { templateFuncs } from './index.js';
import { render } from '../../../test/support/template-funcs.js';

const FIXTURES: [json: string, yaml: string][] = [
  [
    '{"a": [1, 2, {"b": "yes"}], "c": "x: y", "d": "line1\\nline2", "e": {}, "f": []}',
    'a:\n- 1\n- 2\n- b: "yes"\nc: \'x: y\'\nd: |-\n  line1\n  line2\ne: {}\nf: []\n',
  ],
  [
    '["yes", "no", "on", "y", "~", "null", "", "1.0", "08", "0x1F", "1_000", "1:20", "2001-12-14", "2001-02-30", "-", "- a", "? x", "x #y", "x#y", "#x", "*x", "&x", "!x", "\'x", "\\"x", "---", " x", "x ", "a\\tb", "\\u00e9", "\\ud83d\\ude00", "\\u2028x", "<a>&b"]',
    '- "yes"\n- "no"\n- "on"\n- "y"\n- "~"\n- "null"\n- ""\n- "1.0"\n- "08"\n- "0x1F"\n- "1_000"\n- "1:20"\n- "2001-12-14"\n- 2001-02-30\n- \'-\'\n- \'- a\'\n- \'? x\'\n- \'x #y\'\n- x#y\n- \'#x\'\n- \'*x\'\n- \'&x\'\n- \'!x\'\n- \'\'\'x\'\n- \'"x\'\n- \'---\'\n- \' x\'\n- \'x \'\n- "a\\tb"\n- \u00e9\n- "\\U0001F600"\n- \'\u2028  x\'\n- <a>&b\n',
  ],
  [
    '["a\\nb", "a\\n", "a\\n\\n", " a\\nb", "\\na", "a \\nb", "it\'s\\nfine"]',
    '- |-\n  a\n  b\n- |\n  a\n- |+\n  a\n\n- |2-\n   a\n  b\n- |2-\n\n  a\n- "a \\nb"\n- |-\n  it\'s\n  fine\n',
  ],
  [
    '[1, 1.5, -0.0, 1e+20, 1e+21, 1e-07, 123456789.5, 100000, 1000000, 12345678901234567890, true, false, null]',
    '- 1\n- 1.5\n- 0\n- 1e+20\n- 1e+21\n- 1e-07\n- 1.234567895e+08\n- 100000\n- 1000000\n- 12345678901234567000\n- true\n- false\n- null\n',
  ],
  [
    '{"b": 1, "a": 2, "a10": 3, "a2": 4, "A": 5, "_": 6, "1": 7, "10": 8, "2": 9, "\\u00e9": 10, "a02": 11, "a1": 12}',
    '_: 6\n"1": 7\n"2": 9\n"10": 8\nA: 5\na: 2\na1: 12\na2: 4\na02: 11\na10: 3\nb: 1\n\u00e9: 10\n',
  ],
  [
    '{"k": "aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp qqqq rrrr ssss tttt uuuu vvvv"}',
    'k: aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp\n  qqqq rrrr ssss tttt uuuu vvvv\n',
  ],
  [
    '["aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp: qqqq rrrr ssss tttt uuuu"]',
    "- 'aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp:\n  qqqq rrrr ssss tttt uuuu'\n",
  ],
  [
    '{"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk": 1}',
    '? kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\n: 1\n',
  ],
  ['{"a\\nb": 1, "": 3, "yes": 5}', '"": 3\n? |-\n  a\n  b\n: 1\n"yes": 5\n'],
  ['{"x": {"y": {"z": [{"a": [[1, {"b": "c"}], []]}]}}}', 'x:\n  "y":\n    z:\n    - a:\n      - - 1\n        - b: c\n      - []\n'],
  [
    '{"resources": {"limits": {"cpu": "2", "memory": "1Gi"}, "requests": {"cpu": "100m", "memory": "128Mi"}}}',
    'resources:\n  limits:\n    cpu: "2"\n    memory: 1Gi\n  requests:\n    cpu: 100m\n    memory: 128Mi\n',
  ],
  ['"\\u0085x"', "' x'\n"],
  ['"\\ufeffx"', '"\\uFEFF\\x78"\n'],
  ['"plain"', 'plain\n'],
  ['7', '7\n'],
  ['null', 'null\n'],
];

describe('toYaml writes what sigs.k8s.io/yaml writes (fixtures from go-yaml v2)', () => {
  for (const [json, want] of FIXTURES) {
    test(json.length > 70 ? json.slice(0, 70) + '...' : json, () => {
      assert.equal(goYamlMarshal(goJsonUnmarshal(json).value), want);
    });
  }
});

/** A YAML 1.1 reader like go-yaml's, minus timestamps (go-yaml keeps invalid dates as strings). */
function parseYaml11(text: string): unknown {
  return parse(text, {
    version: '1.1',
    customTags: (tags) => tags.filter((t) => typeof t === 'string' || t.tag !== 'tag:yaml.org,2002:timestamp'),
  });
}

describe('toYaml output reads back as the same data', () => {
  const tricky = fc.constantFrom(
    'a',
    'B',
    '1',
    ' ',
    ':',
    '-',
    '#',
    '?',
    "'",
    '"',
    '\\',
    '\n',
    '\t',
    '.',
    '*',
    '&',
    '!',
    '|',
    '>',
    '%',
    '@',
    '`',
    ',',
    '[',
    ']',
    '{',
    '}',
    'é',
    '😀',
    '\u00a0',
    '~',
    'yes',
    'no',
    'on',
    'null',
    'true',
    '1.0',
    '0x1',
    '12:30',
    '2001-01-01',
    '1e3',
    'x'.repeat(40),
  );
  // Where the yaml package's 1.1 reader and go-yaml disagree, we follow go-yaml, so such strings
  // are not generated: "." / "-." / "+." (NaN for the yaml package) and out-of-range floats such
  // as "1e311" (Infinity for it; a string for go-yaml, which writes it unquoted).
  const readersDisagree = (s: string): boolean => /^[-+]?\.$/.test(s) || /^[-+]?[0-9._]*[eE][-+]?[0-9]{3,}$/.test(s);
  const str = fc.string({ unit: tricky, maxLength: 8 }).filter((s) => !readersDisagree(s));
  const num = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));
  const value = fc.letrec((tie) => ({
    v: fc.oneof(
      { depthSize: 'small' },
      str,
      num,
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('v'), { maxLength: 4 }),
      fc.dictionary(str, tie('v'), { maxKeys: 4 }),
    ),
  })).v;
  test('for generated data with YAML-significant characters (property)', () => {
    fc.assert(
      fc.property(value, (v) => {
        const json = JSON.parse(JSON.stringify(v)) as unknown;
        assert.deepEqual(parseYaml11(goYamlMarshal(json)), json);
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 500) },
    );
  });
});

describe('details', () => {
  test("go-yaml's key order: non-letters before letters, digit runs compared by value", () => {
    const keys = ['b', 'a10', 'a2', '_', '10', '2', 'A', 'a'];
    const sorted = [...keys].sort((x, y) => (yamlKeyLess(x, y) ? -1 : yamlKeyLess(y, x) ? 1 : 0));
    assert.deepEqual(sorted, ['_', '2', '10', 'A', 'a', 'a2', 'a10', 'b']); // as go-yaml v2 orders them
  });
  test('toYaml of a value JSON cannot encode is "" (Istio logs the error and returns "")', () => {
    assert.equal(render(templateFuncs(), '[{{ toYaml (float64 "NaN") }}]').out, '[]');
  });
});
