/**
 * Go fmt printing. Every expected string below was produced by Go 1.19's fmt through
 * /usr/local/bin/gotemplate-ref (`{{printf ...}}` with the same operands: template integer
 * constants are Go `int` (bigint here), JSON and float constants are float64).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatValue, sprint, sprintf, sprintln } from './go-fmt.js';
import { GoNumber, withGoType, GO_OBJECT, NO_FIELD, goFunc, type GoObject } from './value.js';

test('%v of float64 is Go shortest %g with exponent from 1e+06 on', () => {
  assert.equal(
    [3, 2.5, 1e6, 123456789, -0, 1e-5, 100000, 1e21, 0.0001, 1e100, 5e-324].map(formatValue).join(' '),
    '3 2.5 1e+06 1.23456789e+08 -0 1e-05 100000 1e+21 0.0001 1e+100 5e-324',
  );
});

test('maps print with sorted keys, slices space-separated, nil inside as <nil>', () => {
  assert.equal(formatValue({ z: null, x: 1, y: 's', n: [1, 'a', null, true] }), 'map[n:[1 a <nil> true] x:1 y:s z:<nil>]');
  assert.equal(formatValue(undefined), '<nil>');
  assert.equal(formatValue(null), '<nil>');
  assert.equal(formatValue({}), 'map[]');
  assert.equal(formatValue(withGoType(['a', 'b'], '[]string')), '[a b]');
});

test('%#v, %+v and %T of JSON shapes', () => {
  const m = { x: 1, y: 's', z: null };
  assert.equal(
    sprintf('%.2v|%#v|%#v|%#v|%+v', [3.14159, 1.0, m, [1, 'a', null, true], m]),
    '3.1|1|map[string]interface {}{"x":1, "y":"s", "z":interface {}(nil)}|[]interface {}{1, "a", interface {}(nil), true}|map[x:1 y:s z:<nil>]',
  );
  assert.equal(sprintf('%#v|%#v|%#v|%+v|%#v', [5n, 'a', true, 5n, null]), '5|"a"|true|5|<nil>');
  assert.equal(sprintf('%T %T %T %T %T %T %T', [1n, 1.5, 's', true, null, [1], {}]), 'int float64 string bool <nil> []interface {} map[string]interface {}');
});

test('string verbs, widths, precision and quoting', () => {
  assert.equal(
    sprintf('%05s|%-5s|%5.1s|%x|% x|%#x|%X|%q|%+q|%#q', ['ab', 'ab', 'xyz', 'hi', 'hi', 'hi', 'hi', 'a\tb', 'é', 'ab']),
    '000ab|ab   |    x|6869|68 69|0x6869|6869|"a\\tb"|"\\u00e9"|`ab`',
  );
  assert.equal(sprintf('%5t|%-6t|%q|%v', [true, false, '\u0000\u007f\u00a0\u200b\ufeff', '\u00a0']), ' true|false |"\\x00\\x7f\\u00a0\\u200b\\ufeff"|\u00a0');
  assert.equal(sprintf('%#q|%#q|%#q|%+q', ['a`b', '\ufeff', '\t', '😀']), '"a`b"|"\\ufeff"|`\t`|"\\U0001f600"');
  assert.equal(sprintf('%.3s|%.10s|%5.2q|%.1x|% X|%# x', ['héllo', 'ab', 'héllo', 'héllo', 'hé', 'hé']), 'hél|ab| "hé"|68|68 C3 A9|0x68 0xc3 0xa9');
  assert.equal(sprintf('%-05d|%05s|%05v|%05q|%-#10x|%#-10X', [5n, 'é', [1, 'a'], 'a', 'hi', 'hi']), '5    |0000é|[00001 0000a]|00"a"|0x6869    |0X6869    ');
});

test('integer verbs and flags', () => {
  assert.equal(sprintf('%c %q %U %#U %b %o %O %x', [65n, 65n, 65n, 233n, 5n, 8n, 8n, -255n]), "A 'A' U+0041 U+00E9 'é' 101 10 0o10 -ff");
  assert.equal(sprintf('%08.3d|%.0d|%5.0d|%x|%X|%#o|%#b|%+.3d|% 05d', [5n, 0n, 0n, 255n, 255n, 8n, 5n, 7n, -3n]), '     005||     |ff|FF|010|0b101|+007|-0003');
  assert.equal(
    sprintf('%c|%c|%q|%U|%#U|%.6U|%c', [0x1f600n, -1n, 0x1f600n, 0x1f600n, 0x1f600n, 65n, 1114112n]),
    "😀|\ufffd|'😀'|U+1F600|U+1F600 '😀'|U+000041|\ufffd",
  );
  assert.equal(sprintf('%#08x %+d % d', [255n, 5n, 5n]), '0x000000ff +5  5');
  assert.equal(sprintf('%d %x %v', [new GoNumber('int64', -3n), new GoNumber('uint8', 255n), new GoNumber('int32', 7n)]), '-3 ff 7');
});

test('float verbs round exact ties to even and allow any precision', () => {
  assert.equal(
    sprintf('%08.3f %-8.3f| %e %E %g %G %.3e %.0f %.0f %.0f', [3.14159, 3.14159, 1234.5678, 1234.5678, 1234.5678, 1e-7, 1234.5678, 0.5, 1.5, 2.5]),
    '0003.142 3.142   | 1.234568e+03 1.234568E+03 1234.5678 1E-07 1.235e+03 0 2 2',
  );
  assert.equal(
    sprintf('%6.2f|%-8.3e|%+.1g|%#g|%#.3x|%x|%X|%b', [-1.5, 1234.5, 0.000012, 1.0, 1.0, 1.5, -3.75, 1.0]),
    ' -1.50|1.234e+03|+1e-05|1.00000|0x1.000p+00|0x1.8p+00|-0X1.EP+01|4503599627370496p-52',
  );
  assert.equal(
    sprintf('%v %v %v %v %v %.3g %g %g', [1e20, 1e21, 123456.0, 1234567.0, 0.0001, 100.0, 1e-5, 0.00001234]),
    '1e+20 1e+21 123456 1.234567e+06 0.0001 100 1e-05 1.234e-05',
  );
  assert.equal(
    sprintf('%#v|%#v|%#g|%#.0f|%#.0e|%#x|%#v|%F|%#v|%#v', [1e6, 2.5, 1e6, 1.0, 1.0, 1.5, -0, 1.5, 1e-7, 123456789.0]),
    '1e+06|2.5|1.00000e+06|1.|1.e+00|0x1.8000p+00|-0|1.500000|1e-07|1.23456789e+08',
  );
  assert.equal(
    sprintf('%e|%.3e|%g|%.0e|%.20f|%.30e|%.17g', [0.0, 0.0, 0.0, 5.0, 0.1, 0.1, 0.1]),
    '0.000000e+00|0.000e+00|0|5e+00|0.10000000000000000555|1.000000000000000055511151231258e-01|0.10000000000000001',
  );
  assert.equal(sprintf('%v|%v|%.1f|%.2f|%.3f|%g|%G', [1e100, 5e-324, 0.05, 1.005, 2.0005, 1e-320, 1e300]), '1e+100|5e-324|0.1|1.00|2.001|1e-320|1E+300');
});

test('mistakes are reported in-band as Go does', () => {
  assert.equal(sprintf('%d %s %t %v', ['x', 5n, 1n, null]), '%!d(string=x) %!s(int=5) %!t(int=1) <nil>');
  assert.equal(
    [
      sprintf('%d', [1n, 2n]),
      sprintf('%d %d', [1n]),
      sprintf('%', []),
      sprintf('%[2]d %[1]d', [1n, 2n]),
      sprintf('%[3]d', [1n, 2n]),
      sprintf('%*d|%-*d|%.*f', [5n, 1n, 5n, 2n, 2n, 3.14159]),
    ].join(' '),
    '1%!(EXTRA int=2) 1 %!d(MISSING) %!(NOVERB) 2 1 %!d(BADINDEX)     1|2    |3.14',
  );
  assert.equal(sprintf('%w %p %z', ['x', 'y', 3n]), '%!w(string=x) %!p(string=y) %!z(int=3)');
  assert.equal(
    [
      sprintf('%!', []),
      sprintf('%[x]d', [1n]),
      sprintf('%[1]5d', [1n]),
      sprintf('%.[2]d', [1n, 2n]),
      sprintf('%*d', ['a', 1n]),
      sprintf('%.*d', [-1n, 5n]),
    ].join('|'),
    '%!!(MISSING)|%!d(BADINDEX)|%!d(BADINDEX)|2|%!(BADWIDTH)1|%!(BADPREC)5',
  );
});

test('verbs apply to every element of a container', () => {
  const l = [1, 2.5, 'a'];
  assert.equal(
    sprintf('%v %d %x', [l, l, l]) + ' ' + sprintf('%5v|%-4d|', [l, { b: 1, a: 2 }]),
    '[1 2.5 a] [%!d(float64=1) %!d(float64=2.5) %!d(string=a)] [0x1p+00 0x1.4p+01 61] [    1   2.5     a]|map[%!d(string=a   ):%!d(float64=2   ) %!d(string=b   ):%!d(float64=1   )]|',
  );
  const m = { k: 'v', n: [1, 'x'] };
  assert.equal(sprintf('%s|%q|%x', [m, m, m]), 'map[k:v n:[%!s(float64=1) x]]|map["k":"v" "n":[%!q(float64=1) "x"]]|map[6b:76 6e:[0x1p+00 78]]');
});

test('Sprint spaces operands unless one is a string; Sprintln always', () => {
  assert.equal(sprint([1n, 2n, 'a', 'b', 3n, null, 4n]), '1 2ab3 <nil> 4');
  assert.equal(sprintln([1n, 'a', null]), '1 a <nil>\n');
  assert.equal(sprint([]), '');
});

test('structs print fields in order and use String methods', () => {
  const fields: Record<string, unknown> = { Name: 'a', Port: 80n };
  const plain: GoObject = {
    [GO_OBJECT]: true,
    goType: '*v1.C',
    getField: (n) => (n in fields ? fields[n] : NO_FIELD),
    getMethod: () => undefined,
    fieldNames: () => ['Name', 'Port'],
    toJSON: () => fields,
  };
  assert.equal(sprintf('%v|%+v|%#v', [plain, plain, plain]), '&{a 80}|&{Name:a Port:80}|&v1.C{Name:"a", Port:80}');
  const stringer: GoObject = { ...plain, goType: 'v1.Q', getMethod: (n) => (n === 'String' ? goFunc([], () => '100m') : undefined) };
  assert.equal(sprintf('%v|%s|%q|%d', [stringer, stringer, stringer, stringer]), '100m|100m|"100m"|{%!d(string=a) 80}');
});

test('typed nil slices and maps (funcs/nil.ts markers) print as empty, but %#v shows nil', () => {
  const mark = <T extends object>(v: T): T => Object.defineProperty(v, Symbol.for('sidecar-injector.template.goNil'), { value: true });
  const nilList = mark([] as unknown[]);
  const nilStrings = mark(withGoType([] as unknown[], '[]string'));
  const nilMap = mark({});
  assert.equal(
    sprintf('%v %v %v|%#v|%#v|%#v|%#v', [nilList, nilStrings, nilMap, nilList, nilStrings, nilMap, []]),
    '[] [] map[]|[]interface {}(nil)|[]string(nil)|map[string]interface {}(nil)|[]interface {}{}',
  );
});

test('values outside the model (a bare JS function) print a placeholder instead of failing', () => {
  assert.equal(sprintf('%v|%d', [() => 1, Symbol('s')]), '%!v(function)|%!d(symbol)');
});

test('sprintf "%v" of one operand (its fast path) prints as the full Printf path does', () => {
  const obj: GoObject = {
    [GO_OBJECT]: true,
    goType: '*t.T',
    getField: () => NO_FIELD,
    getMethod: () => undefined,
    fieldNames: () => ['A'],
    toJSON: () => ({}),
  };
  const values: unknown[] = [
    'a',
    '',
    'é\n',
    true,
    false,
    0,
    -0,
    3,
    2.5,
    1e6,
    1e-5,
    0.1,
    123456.7,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    5n,
    -(2n ** 63n),
    2n ** 64n,
    undefined,
    null,
    [1, 'a', null],
    withGoType(['x'], '[]string'),
    { b: 1, a: [true] },
    Object.create(null),
    new GoNumber('int32', 7n),
    new GoNumber('uint8', 255n),
    new GoNumber('float32', 0.5),
    obj,
    goFunc([], () => 1),
  ];
  values.forEach((v, i) => {
    // `%v%s` with an empty string runs the general path; its output is the `%v` part.
    assert.equal(sprintf('%v', [v]), sprintf('%v%s', [v, '']), `value ${i}`);
  });
});
