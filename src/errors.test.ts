import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { exitStatusHelp } from './cli/manual-help.js';
import { InjectorError, InputError, allErrorCodes, errorInfo, formatLocation, toInjectorError } from './errors.js';

test('a located error reads "file: document N, line L, column C: message"', () => {
  const err = new InputError('SI_INPUT_YAML', 'invalid YAML: bad indentation', { location: { file: 'app.yaml', document: 1, line: 16, column: 8 } });
  assert.equal(err.describe(), 'app.yaml: document 2, line 16, column 8: invalid YAML: bad indentation');
  assert.equal(formatLocation({ file: 'app.yaml' }), 'app.yaml');
  assert.equal(formatLocation({ document: 0, line: 3 }), 'document 1, line 3');
  assert.equal(new InjectorError('SI_USAGE', 'no file').describe(), 'no file');
});

test('every code has a CLI exit status from 1 to 10, an HTTP error status and a summary', () => {
  for (const code of allErrorCodes()) {
    const info = errorInfo(code);
    assert.ok(info.exitCode >= 1 && info.exitCode <= 10, code);
    assert.ok(info.httpStatus >= 400 && info.httpStatus <= 599, code);
    assert.ok(info.summary.length > 0, code);
  }
});

test('anything thrown becomes an InjectorError; stack overflows become a limit error, not a crash', () => {
  const ours = new InputError('SI_INPUT_OBJECT', 'x');
  assert.equal(toInjectorError(ours), ours);
  assert.equal(toInjectorError(new RangeError('Maximum call stack size exceeded')).code, 'SI_INPUT_LIMIT');
  const wrapped = toInjectorError('a string');
  assert.equal(wrapped.code, 'SI_INTERNAL');
  assert.match(wrapped.message, /a string/);
});

test('every code in the catalogue is raised somewhere in src/ (no dead codes)', () => {
  const sources = execFileSync('find', ['src', '-name', '*.ts', '!', '-name', '*.test.ts', '!', '-name', 'errors.ts'], {
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => f !== '')
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  const unused = allErrorCodes().filter((code) => !sources.includes(`'${code}'`));
  assert.deepEqual(unused, []);
});

test("the CLI's exit-status help is generated from the catalogue: every status and code a manifest command can end with", () => {
  const help = exitStatusHelp();
  for (const code of allErrorCodes().filter((c) => /^SI_(USAGE|FILE_|INPUT_|TEMPLATE_|CONFIG_|INJECT_|PATCH|INTERNAL)/.test(c))) {
    assert.match(help, new RegExp(`^ +${errorInfo(code).exitCode}  ${code} +${errorInfo(code).summary.replace(/[()]/g, '\\$&')}$`, 'm'), code);
  }
  assert.match(help, /^ +3 {2}SI_TEMPLATE_PARSE/m, 'exit 3 (templates) is listed');
});
