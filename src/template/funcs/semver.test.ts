/**
 * @module template/funcs/semver.test
 * semver (Masterminds/semver v3.2 Version through its methods) and semverCompare constraints. Expected values are what Go 1.19 text/template + Sprig 3.2.3
 * (the gotemplate-ref oracle) printed for the same template and data.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sprigFuncs } from './index.js';
import { runCases } from '../../../test/support/template-funcs.js';
import { newVersion, semverCompare } from './semver.js';

describe('semver functions match Go + Sprig', () => {
  runCases(sprigFuncs(), [
    {
      t: '{{ semver "1.2.3-beta.1+b5" }}|{{ (semver "v1.2").Major }}|{{ (semver "1.2.3").Minor }}|{{ (semver "1.2.3").Patch }}|{{ (semver "1.2.3-rc1").Prerelease }}|{{ (semver "1.2.3+m").Metadata }}|{{ (semver "v1.2.3").Original }}|{{ typeOf (semver "1.2.3") }}|{{ typeOf (semver "1.2.3").Major }}',
      want: '1.2.3-beta.1+b5|1|2|3|rc1|m|v1.2.3|*semver.Version|uint64',
    },
    {
      t: '{{ (semver "1.2.3").IncMinor }}|{{ (semver "v1.2.3-a").IncPatch }}|{{ typeOf (semver "1.2.3").IncMajor }}|{{ (semver "1.2.3").Compare (semver "1.2.4") }}|{{ (semver "1.2.3").LessThan (semver "1.10.0") }}|{{ (semver "1.0.0-alpha").GreaterThan (semver "1.0.0-alpha.1") }}|{{ (semver "1.0.0+a").Equal (semver "1.0.0+b") }}|{{ toJson (semver "1.2.3") }}|{{ printf "%v" (semver "v1.2") }}|{{ (semver "1.2.3").IncPatch.Major }}',
      want: '1.3.0|1.2.3|semver.Version|-1|true|false|true|"1.2.3"|1.2.0|1',
    },
    { t: '{{ (semver "v1.2.3").IncPatch.Original }}', err: "can't evaluate field Original in type semver.Version" },
    { t: '{{ semver "1.2.x" }}', err: 'error calling semver: Invalid Semantic Version' },
    { t: '{{ semver "1.2.3-01" }}', err: 'error calling semver: Version segment starts with 0' },
    {
      t: '{{ semver "99999999999999999999.0.0" }}',
      err: 'error calling semver: Error parsing version segment: strconv.ParseUint: parsing "99999999999999999999": value out of range',
    },
    {
      t: '{{ semverCompare ">=1.2.3" "1.2.3" }}|{{ semverCompare "^1.2" "1.9.0" }}|{{ semverCompare "^1.2" "2.0.0" }}|{{ semverCompare "~1.2.3" "1.2.9" }}|{{ semverCompare "~1.2.3" "1.3.0" }}|{{ semverCompare "~1" "1.9.0" }}|{{ semverCompare "1.2 - 1.4" "1.3.5" }}|{{ semverCompare "1.2 - 1.4" "1.5.0" }}|{{ semverCompare ">1.0, <2.0" "1.5.0" }}|{{ semverCompare ">1.0 <2.0" "2.5.0" }}|{{ semverCompare "<1 || >=3" "2.0.0" }}|{{ semverCompare "<1 || >=3" "3.1.0" }}',
      want: 'true|true|false|true|false|true|true|false|true|false|false|true',
    },
    {
      t: '{{ semverCompare "1.x" "1.9.9" }}|{{ semverCompare "1.2.X" "1.2.7" }}|{{ semverCompare "*" "1.0.0" }}|{{ semverCompare "*" "1.0.0-alpha" }}|{{ semverCompare ">=1.0.0-alpha" "1.0.0-beta" }}|{{ semverCompare ">=1.0.0" "1.0.1-beta" }}|{{ semverCompare "!=1.2.3" "1.2.4-beta" }}|{{ semverCompare "!=1.2.x" "1.2.4" }}|{{ semverCompare "^0.2.3" "0.2.9" }}|{{ semverCompare "^0.2.3" "0.3.0" }}|{{ semverCompare "^0.0.3" "0.0.4" }}|{{ semverCompare "=1.2.3" "v1.2.3" }}|{{ semverCompare ">1.2" "1.2.5" }}|{{ semverCompare "<=1.2" "1.2.9" }}|{{ semverCompare "=>1.0" "1.0.0" }}|{{ semverCompare "~>1.2" "1.2.8" }}',
      want: 'true|true|true|false|true|false|true|false|true|false|false|true|false|true|true|true',
    },
    { t: '{{ semverCompare "bogus" "1.0.0" }}', err: 'error calling semverCompare: improper constraint: bogus' },
    { t: '{{ semverCompare ">1" "x" }}', err: 'error calling semverCompare: Invalid Semantic Version' },
    { t: '{{ semverCompare "" "1.0.0" }}', err: 'error calling semverCompare: improper constraint: ' },
  ]);
});

describe('semver properties', () => {
  const version = fc
    .tuple(fc.nat(20), fc.nat(20), fc.nat(20), fc.option(fc.constantFrom('alpha', 'alpha.1', 'beta', 'rc.2', '1')))
    .map(([a, b, c, pre]) => `${a}.${b}.${c}${pre === null ? '' : '-' + pre}`);
  test('Compare is antisymmetric and agrees with the >= and < constraints', () => {
    fc.assert(
      fc.property(version, version, (a, b) => {
        const va = newVersion(a);
        const vb = newVersion(b);
        // `0 -`, not unary minus: equal versions compare 0 both ways, and -0 is not 0 to strict equality.
        assert.equal(va.compare(vb), 0 - vb.compare(va));
        if (va.pre === '' && vb.pre === '') {
          assert.equal(semverCompare(`>=${b}`, a), va.compare(vb) >= 0);
          assert.equal(semverCompare(`<${b}`, a), va.compare(vb) < 0);
        }
      }),
    );
  });
});
