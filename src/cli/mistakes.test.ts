/**
 * @module cli/mistakes.test
 * A user's mistake is never an internal error (issue 27, item 2). Every command, run in-process
 * as the binary runs it, with the common mistakes: missing files and directories, no kubeconfig,
 * an unreachable cluster (a kubeconfig pointing at a closed loopback port), a wrong context (a
 * kubeconfig with two contexts), an unreadable Secret (the TLS files of a Secret that are not
 * PEM, or a directory where a file should be) and a bad duration. Each must end with a
 * catalogue code other than SI_INTERNAL, a message that says what to do, and no stack trace.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { memoryIO, type MemoryIO } from '../../test/support/memory-io.js';
import type { Command } from 'commander';
import { buildProgram, runCli } from './command-tree.js';
import { errorInfo, type ErrorCode } from '../errors.js';

const dir = mkdtempSync(join(tmpdir(), 'si-mistakes-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const at = (p: string) => join(dir, p);
const file = (p: string, text: string): string => {
  mkdirSync(join(at(p), '..'), { recursive: true });
  writeFileSync(at(p), text);
  return at(p);
};

/** A loopback port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

const APP = file('app.yaml', 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: a}]\n');
const MISSING = at('missing');
let UNREACHABLE = '';
let TWO_CONTEXTS = '';
const EMPTY_HOME = at('home');
mkdirSync(EMPTY_HOME);
// A Secret's files as mounted, but not PEM; and one with a directory in place of tls.key.
const BAD_SECRET = at('bad-secret');
file('bad-secret/tls.crt', 'not a certificate\n');
file('bad-secret/tls.key', 'not a key\n');
file('bad-secret/ca.crt', 'not a certificate\n');
file('bad-secret/ca.key', 'not a key\n');
const DIR_SECRET = at('dir-secret');
file('dir-secret/tls.crt', 'x');
mkdirSync(at('dir-secret/tls.key'));

before(async () => {
  const kubeconfig = (contexts: string, current: string, port: number) =>
    `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "https://127.0.0.1:${port}", insecure-skip-tls-verify: true}\nusers:\n- name: u\n  user: {token: t}\ncontexts:\n${contexts}current-context: ${current}\n`;
  const port = await closedPort();
  UNREACHABLE = file('unreachable.kubeconfig', kubeconfig('- name: dev\n  context: {cluster: c, user: u}\n', 'dev', port));
  TWO_CONTEXTS = file(
    'two.kubeconfig',
    kubeconfig('- name: dev\n  context: {cluster: c, user: u}\n- name: staging\n  context: {cluster: c, user: u}\n', 'dev', port),
  );
});

interface Mistake {
  what: string;
  argv: () => string[];
  /** The code expected, or a pattern of codes. */
  code: RegExp;
  /** What the message must say: where, and what to do. */
  says: RegExp;
  env?: Record<string, string | undefined>;
}

const NO_KUBECONFIG = { KUBECONFIG: undefined, HOME: EMPTY_HOME, KUBERNETES_SERVICE_HOST: undefined, KUBERNETES_SERVICE_PORT: undefined };
const cluster = (cmd: string[]): Mistake[] => [
  {
    what: `${cmd.join(' ')}: no kubeconfig`,
    argv: () => cmd,
    env: NO_KUBECONFIG,
    code: /SI_CLUSTER_CONFIG/,
    says: /no kubeconfig: .*pass --kubeconfig FILE or set KUBECONFIG/,
  },
  {
    what: `${cmd.join(' ')}: --kubeconfig names a missing file`,
    argv: () => [...cmd, '--kubeconfig', MISSING],
    code: /SI_CLUSTER_CONFIG/,
    says: /cannot read the kubeconfig .*missing: the file does not exist; point --kubeconfig at a kubeconfig file/,
  },
  {
    what: `${cmd.join(' ')}: an unreachable cluster`,
    argv: () => [...cmd, '--kubeconfig', UNREACHABLE],
    code: /SI_CLUSTER_REQUEST/,
    says: /ECONNREFUSED.*\(context "dev"\): the cluster cannot be reached: check that it is running and that --kubeconfig\/--context point at it/,
  },
  {
    what: `${cmd.join(' ')}: a wrong context`,
    argv: () => [...cmd, '--kubeconfig', TWO_CONTEXTS, '--context', 'prod'],
    code: /SI_CLUSTER_CONFIG/,
    says: /context "prod" is not in the kubeconfig .*; its contexts: dev, staging/,
  },
];

const MISTAKES: Mistake[] = [
  // Missing files and directories, command by command.
  { what: 'inject -f missing', argv: () => ['inject', '-f', MISSING], code: /SI_FILE_READ/, says: /cannot read .*missing: ENOENT/ },
  {
    what: 'inject -c missing',
    argv: () => ['inject', '-f', APP, '-c', MISSING],
    code: /SI_CONFIG_READ/,
    says: /cannot read the injector config at .*missing: no such file or directory/,
  },
  { what: 'uninject -f missing', argv: () => ['uninject', '-f', MISSING], code: /SI_FILE_READ/, says: /missing: ENOENT/ },
  { what: 'explain -f missing', argv: () => ['explain', '-f', MISSING], code: /SI_FILE_READ/, says: /missing: ENOENT/ },
  { what: 'template render missing.tpl', argv: () => ['template', 'render', MISSING], code: /SI_FILE_READ/, says: /missing: ENOENT/ },
  {
    what: 'template render --data missing',
    argv: () => ['template', 'render', file('t.tpl', 'x'), '--data', MISSING],
    code: /SI_FILE_READ/,
    says: /missing: ENOENT/,
  },
  { what: 'template render -f missing', argv: () => ['template', 'render', '-f', MISSING], code: /SI_FILE_READ/, says: /missing: ENOENT/ },
  { what: 'config check -c missing', argv: () => ['config', 'check', '-c', MISSING], code: /SI_CONFIG_READ/, says: /missing: no such file or directory/ },
  { what: 'config check -f missing', argv: () => ['config', 'check', '-f', MISSING], code: /SI_FILE_READ/, says: /missing: ENOENT/ },
  {
    what: 'config check -c an empty directory',
    argv: () => ['config', 'check', '-c', at('home')],
    code: /SI_CONFIG_READ/,
    says: /is a directory without a config file; --config DIR takes a directory holding config, config\.yaml/,
  },
  { what: 'policy -c missing', argv: () => ['policy', '-c', MISSING], code: /SI_CONFIG_READ/, says: /missing: no such file or directory/ },
  { what: 'manifests -c missing', argv: () => ['manifests', '-c', MISSING], code: /SI_CONFIG_READ/, says: /missing: no such file or directory/ },
  {
    what: 'manifests --no-certs --ca-file missing',
    argv: () => ['manifests', '--no-certs', '--ca-file', MISSING],
    code: /SI_CERT_INVALID|SI_FILE_READ/,
    says: /missing/,
  },
  {
    what: 'status -c missing',
    argv: () => ['status', '-c', MISSING, '--kubeconfig', UNREACHABLE],
    code: /SI_CONFIG_READ/,
    says: /missing: no such file or directory/,
  },
  {
    what: 'serve --tls-dir missing',
    argv: () => ['serve', '--tls-dir', MISSING, '--port', '0'],
    code: /SI_CERT_INVALID/,
    says: /missing.*(tls\.crt|directory).*(certs --out|kubernetes\.io\/tls Secret)/,
  },
  {
    what: 'serve --tls-cert/--tls-key missing',
    argv: () => ['serve', '--tls-cert', MISSING, '--tls-key', MISSING, '--port', '0'],
    code: /SI_CERT_INVALID/,
    says: /missing/,
  },
  {
    what: 'serve --config missing',
    argv: () => ['serve', '--config', MISSING, '--port', '0'],
    code: /SI_CONFIG_READ/,
    says: /missing: no such file or directory/,
  },
  { what: 'serve --client-ca missing', argv: () => ['serve', '--client-ca', MISSING, '--port', '0'], code: /SI_CERT_INVALID/, says: /missing/ },
  {
    what: 'certs --out under a file',
    argv: () => ['certs', '--service', 's', '-n', 'n', '--out', join(APP, 'sub')],
    code: /SI_FILE_WRITE|SI_CERT_GENERATE/,
    says: /app\.yaml/,
  },
  // The cluster: no kubeconfig, unreachable, wrong context.
  ...cluster(['status']),
  ...cluster(['restart', '--stale']),
  ...cluster(['rollout', '--from', 'default', '--to', 'canary', '-n', 'shop']),
  ...cluster(['version']).filter((m) => !/no kubeconfig$/.test(m.what)),
  {
    what: 'serve --webhook-config outside a pod',
    argv: () => ['serve', '--webhook-config', 'x', '--tls-dir', at('good-certs'), '--port', '0'],
    env: NO_KUBECONFIG,
    code: /SI_CLUSTER_CONFIG/,
    says: /not running in a Kubernetes pod.*--kubeconfig/,
  },
  {
    what: 'serve --reconcile with no kubeconfig',
    argv: () => ['serve', '--reconcile', '--port', '0'],
    env: NO_KUBECONFIG,
    code: /SI_CLUSTER_CONFIG/,
    says: /no kubeconfig: .*pass --kubeconfig FILE/,
  },
  {
    what: 'serve --context that does not exist',
    argv: () => ['serve', '--reconcile', '--kubeconfig', TWO_CONTEXTS, '--context', 'prod', '--port', '0'],
    code: /SI_CLUSTER_CONFIG/,
    says: /context "prod" is not in the kubeconfig/,
  },
  // An unreadable Secret.
  {
    what: 'serve --tls-dir with files that are not PEM',
    argv: () => ['serve', '--tls-dir', BAD_SECRET, '--port', '0'],
    code: /SI_CERT_INVALID/,
    says: /bad-secret\/tls\.(crt|key)/,
  },
  {
    what: 'serve --tls-dir with a directory for tls.key',
    argv: () => ['serve', '--tls-dir', DIR_SECRET, '--port', '0'],
    code: /SI_CERT_INVALID/,
    says: /dir-secret\/tls\.key/,
  },
  {
    what: 'certs --out a Secret whose CA is not PEM',
    argv: () => ['certs', '--service', 's', '-n', 'n', '--out', BAD_SECRET],
    code: /SI_CERT_INVALID/,
    says: /bad-secret\/ca\.(crt|key).*--force/,
  },
  {
    what: 'manifests --certs-dir a Secret whose CA is not PEM',
    argv: () => ['manifests', '--certs-dir', BAD_SECRET],
    code: /SI_CERT_INVALID/,
    says: /bad-secret\/ca\.(crt|key)/,
  },
  { what: 'completion for a shell it does not know', argv: () => ['completion', 'ksh'], code: /SI_USAGE/, says: /Allowed choices are bash, zsh, fish/ },
  // Bad durations.
  {
    what: 'restart --timeout 1d',
    argv: () => ['restart', '--stale', '--timeout', '1d'],
    code: /SI_USAGE/,
    says: /expected a Go duration such as 30s, 1m30s, 1\.5h or 500ms/,
  },
  { what: 'restart --interval -1s', argv: () => ['restart', '--stale', '--interval', '-1s'], code: /SI_USAGE/, says: /expected a duration from 0s to 1h0m0s/ },
  { what: 'serve --drain-delay 5x', argv: () => ['serve', '--drain-delay', '5x'], code: /SI_USAGE/, says: /expected a Go duration/ },
  { what: 'serve --shutdown-timeout 2h', argv: () => ['serve', '--shutdown-timeout', '2h'], code: /SI_USAGE/, says: /expected a duration from 0s to 1h0m0s/ },
  {
    what: 'serve --reconcile-restart-timeout soon',
    argv: () => ['serve', '--reconcile-restart-timeout', 'soon'],
    code: /SI_USAGE/,
    says: /expected a Go duration/,
  },
  {
    what: 'rollout --timeout 5 minutes',
    argv: () => ['rollout', '--from', 'default', '--to', 'canary', '-n', 'shop', '--timeout', '5 minutes'],
    code: /SI_USAGE/,
    says: /expected a Go duration/,
  },
  { what: 'manifests --drain-delay 1.5s', argv: () => ['manifests', '--drain-delay', '1.5s'], code: /SI_USAGE/, says: /expected whole seconds/ },
];

async function run(m: Mistake): Promise<{ code: number; io: MemoryIO }> {
  const saved = { ...process.env };
  for (const [k, v] of Object.entries(m.env ?? {})) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  // A command that wrongly starts serving is stopped, and then fails the exit-status check.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 15_000);
  const io = Object.assign(memoryIO(), { signal: controller.signal });
  try {
    return { code: await runCli(m.argv(), io), io };
  } finally {
    clearTimeout(timer);
    process.env = saved;
  }
}

describe('every command, with the common mistakes: a catalogue code, what to do, no stack trace', () => {
  before(async () => {
    assert.equal(await runCli(['certs', '--service', 's', '-n', 'n', '--out', at('good-certs')], memoryIO()), 0);
  });
  it('covers every command', () => {
    const commands = (cmd: Command, prefix: string[]): string[] =>
      cmd.commands.flatMap((c) => (c.commands.length > 0 ? commands(c, [...prefix, c.name()]) : [[...prefix, c.name()].join(' ')]));
    const tried = new Set(MISTAKES.map((m) => m.what));
    for (const name of commands(buildProgram(memoryIO()), []))
      assert.ok(
        [...tried].some((w) => w.startsWith(`${name} `) || w.startsWith(`${name}:`)),
        `no mistake for ${name}`,
      );
  });
  for (const m of MISTAKES) {
    it(m.what, async () => {
      const { code, io } = await run(m);
      assert.notEqual(code, 0, `exit 0; stdout: ${io.out}`);
      const line = /^Error \[(SI_[A-Z_]+)\]: (.*)$/m.exec(io.err);
      assert.ok(line, `no "Error [CODE]: message" line in: ${io.err}`);
      assert.notEqual(line[1], 'SI_INTERNAL', io.err);
      assert.equal(code, errorInfo(line[1] as ErrorCode).exitCode, 'the exit status of the code');
      assert.match(line[1], m.code, io.err);
      assert.match(line[2], m.says, io.err);
      assert.doesNotMatch(io.err, /\n\s+at [^\n]*[(:]\d+/, 'a stack trace');
    });
  }
});
