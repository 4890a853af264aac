/**
 * The four commands that load a config agree on the built-in template's values (issue 36,
 * item 7): config check, inject and policy (run as the binary runs them, in-process) and serve's
 * config load (the loader serve starts and reloads with: productRuntime's config.load) refuse
 * each of the three typos with the same SI_CONFIG_INVALID line, exit 4, and write
 * nothing to stdout; a far unknown key is the same warning everywhere, and the config is used.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { memoryIO } from '../../test/support/memory-io.js';
import { runCli } from '../cli/command-tree.js';
import { productRuntime } from '../cli/serve.js';
import { ConfigError } from '../errors.js';

const dir = mkdtempSync(join(tmpdir(), 'si-values-commands-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const POD = join(dir, 'pod.yaml');
writeFileSync(POD, 'apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop}\nspec:\n  containers: [{name: web, image: nginx}]\n');

/** A copy of defaults/ with one change to values.yaml. */
function defaultsWith(name: string, from: RegExp, to: string): string {
  const path = join(dir, name);
  mkdirSync(path);
  writeFileSync(join(path, 'config.yaml'), readFileSync(new URL('../../defaults/config.yaml', import.meta.url), 'utf8'));
  const values = readFileSync(new URL('../../defaults/values.yaml', import.meta.url), 'utf8');
  assert.match(values, from);
  writeFileSync(join(path, 'values.yaml'), values.replace(from, to));
  return path;
}

async function run(argv: string[]) {
  const io = memoryIO();
  return { code: await runCli(argv, io), out: io.out, err: io.err };
}

const CASES = [
  { what: 'hubb:', from: /^ {2}hub:/m, to: '  hubb:', line: 7, message: 'global.hubb: unknown key "hubb" (did you mean "hub"?); global.hub is not set' },
  {
    what: 'interceptionMode: REDIRCT',
    from: /interceptionMode: REDIRECT/,
    to: 'interceptionMode: REDIRCT',
    line: 19,
    message:
      'global.proxy.interceptionMode: must be REDIRECT, TPROXY or NONE (as the annotation sidecar.istio.io/interceptionMode takes), got "REDIRCT" (did you mean "REDIRECT"?)',
  },
  {
    what: 'statusPort: "15021x"',
    from: /statusPort: 15021/,
    to: 'statusPort: "15021x"',
    line: 28,
    message: 'global.proxy.statusPort: must be a port number from 1 to 65535, or 0 to turn the readiness probes off',
  },
];

describe('config check, inject, policy and serve agree on the built-in values', () => {
  CASES.forEach((c, i) => {
    it(`${c.what}: every command refuses it, exit 4, the same line`, async () => {
      const config = defaultsWith(`case${i}`, c.from, c.to);
      const expected = `Error [SI_CONFIG_INVALID]: ${join(config, 'values.yaml')}:${c.line}: ${c.message}`;
      for (const argv of [
        ['config', 'check', '-c', config],
        ['inject', '-c', config, '-f', POD],
        ['policy', '-c', config],
      ]) {
        const r = await run(argv);
        assert.equal(r.code, 4, `${argv.join(' ')}: ${r.err}`);
        assert.equal(r.out, '', `${argv.join(' ')} writes nothing`);
        assert.ok(r.err.startsWith(expected), `${argv.join(' ')}:\n${r.err}\nexpected to start with\n${expected}`);
      }
      const serve = await productRuntime();
      await assert.rejects(serve.config.load(config), (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.equal(err.exitCode, 4);
        assert.ok(`Error [${err.code}]: ${err.message}`.startsWith(expected), err.message);
        return true;
      });
    });
  });

  it('a far unknown key: the same warning from each, and the config is used', async () => {
    const config = defaultsWith('far', /^ {2}clusterDomain:/m, '  owner: team-a\n  clusterDomain:');
    const warning = `global.owner: unknown key "owner": the built-in sidecar template does not read it, so it has no effect`;
    const check = await run(['config', 'check', '-c', config]);
    assert.equal(check.code, 0, check.err);
    assert.ok(`${check.out}${check.err}`.includes(warning), check.out + check.err);
    const inject = await run(['inject', '-c', config, '-f', POD]);
    assert.equal(inject.code, 0, inject.err);
    assert.match(inject.out, /image: docker\.io\/istio\/proxyv2:1\.24\.2/);
    assert.ok(inject.err.includes(warning), inject.err);
    // policy loads it alike, then refuses the built-in template itself (annotations decide what it renders): not a values matter.
    const policy = await run(['policy', '-c', config]);
    assert.ok(policy.err.includes(warning), policy.err);
    assert.doesNotMatch(policy.err, /SI_CONFIG_INVALID/);
    const loaded = await (await productRuntime()).config.load(config);
    assert.ok(loaded.warnings.some((w) => w.includes(warning)));
  });
});
