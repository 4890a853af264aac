/**
 * @module template/funcs/index.test
 * The function maps as a whole: every function the conformance list requires is there, nothing
 * random, time-dependent or networked is, Istio's functions win over Sprig's, and the maps are
 * built once.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTemplate } from '../index.js';
import { injectorFuncs, sprigFuncs, templateFuncs } from './index.js';

const REQUIRED_SPRIG = `trim trimAll trimPrefix trimSuffix upper lower title untitle repeat substr nospace
trunc abbrev contains hasPrefix hasSuffix quote squote cat indent nindent replace plural snakecase camelcase
kebabcase wrap split splitList splitn join sortAlpha atoi int int64 float64 toString toStrings toJson
toPrettyJson toRawJson fromJson regexMatch regexFind regexFindAll regexReplaceAll regexReplaceAllLiteral
regexSplit add add1 sub div mod mul max min floor ceil round default empty coalesce ternary fail b64enc
b64dec sha256sum sha1sum adler32sum list first rest last initial append prepend concat reverse uniq without
has compact until untilStep seq dict get set unset hasKey pluck keys pick omit merge mergeOverwrite values
deepCopy dig kindOf kindIs typeOf typeIs deepEqual semver semverCompare`.split(/\s+/);

const REQUIRED_INJECTOR = `annotation valueOrDefault toJSON fromJSON toYaml indent isset omit strdict toJsonMap
mergeMaps omitNil contains directory formatDuration env`.split(/\s+/);

const NOT_PROVIDED = ['now', 'date', 'dateInZone', 'randAlphaNum', 'randInt', 'uuidv4', 'getHostByName', 'expandenv', 'genCA', 'bcrypt'];

describe('function maps', () => {
  test('every required Sprig function is in sprigFuncs and templateFuncs', () => {
    for (const name of REQUIRED_SPRIG) {
      assert.ok(Object.hasOwn(sprigFuncs(), name), name);
      assert.ok(Object.hasOwn(templateFuncs(), name), name);
    }
    assert.ok(Object.hasOwn(templateFuncs(), 'required'));
  });

  test('every required injector function is in injectorFuncs and templateFuncs', () => {
    for (const name of REQUIRED_INJECTOR) {
      assert.ok(Object.hasOwn(injectorFuncs(), name), name);
      assert.equal(templateFuncs()[name], injectorFuncs()[name], `${name} must be Istio's`);
    }
  });

  const conformanceList = join(dirname(fileURLToPath(import.meta.url)), '../../../../shared/conformance/template-functions.md');
  const noList = existsSync(conformanceList) ? false : `${conformanceList} is missing (../shared not checked out)`;
  test('the conformance list names nothing we lack', { skip: noList }, () => {
    const text = readFileSync(conformanceList, 'utf8');
    const sections = text
      .split('\n\n')
      .filter((p) => /^(Strings|String lists|Conversion|Regular|Math|Defaults|Encoding|Lists|Dicts|Types|Versions|Injector):/.test(p));
    const names = sections
      .flatMap((p) =>
        p
          .replace(/^[^:]*:/, '')
          .replace(/\([^)]*\)/g, '')
          .split(/\s+/),
      )
      .filter((n) => /^[a-zA-Z0-9]+$/.test(n));
    assert.ok(names.length > 100);
    for (const name of names) assert.ok(Object.hasOwn(templateFuncs(), name), name);
  });

  test('random, time, network and environment functions are absent, so templates fail to parse as in Go', () => {
    for (const name of NOT_PROVIDED) {
      assert.equal(Object.hasOwn(templateFuncs(), name), false, name);
      assert.throws(() => parseTemplate('t', `{{ ${name} }}`, { funcs: templateFuncs() }), new RegExp(`function "${name}" not defined`));
    }
    assert.equal(Object.hasOwn(sprigFuncs(), 'env'), false);
    assert.equal(Object.hasOwn(sprigFuncs(), 'required'), false, 'required is Helm, not Sprig');
  });

  test('maps are built once per option set', () => {
    assert.equal(sprigFuncs(), sprigFuncs());
    assert.equal(templateFuncs(), templateFuncs());
    assert.equal(templateFuncs({ allowEnv: true }), templateFuncs({ allowEnv: true }));
    assert.notEqual(templateFuncs({ allowEnv: true }).env, templateFuncs().env);
    assert.ok(Object.isFrozen(templateFuncs()));
  });
});
