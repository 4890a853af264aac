/**
 * @module test/support/shell-blocks.test
 * Every shell block of the documentation runs as written, or says on its first line what it
 * needs that the sandbox lacks (docs/shell-blocks). The sandbox itself is checked first: a
 * failing command fails its block, the network is loopback only, a `# keeps running` server is
 * reachable by the blocks after it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { docFiles, ROOT, runBlocks, shellBlocks, type ShellBlock } from './shell-blocks.js';

const unshare = spawnSync('unshare', ['--user', '--map-root-user', '--net', 'true']).status === 0;
const skip = unshare ? false : 'unshare cannot make a user and network namespace here (the blocks would reach the network and collide on ports)';

const block = (text: string, extra: Partial<ShellBlock> = {}): ShellBlock => ({ file: 'test.md', line: 1, text, keepsRunning: false, ...extra });

describe('the sandbox', { skip }, () => {
  test('a failing command fails its block (set -e, pipefail); later blocks still run and see earlier files', () => {
    const [a, b, c, d] = runBlocks([
      block('echo hi > f\nfalse\necho never'),
      block('cat f | grep -q hi'),
      block('grep nothing f | cat'),
      block('sidecar-injector --version'),
    ]);
    assert.equal(a!.code, 1);
    assert.equal(b!.code, 0, b!.output);
    assert.equal(c!.code, 1, 'pipefail');
    assert.equal(d!.code, 0, d!.output);
    assert.match(d!.output, /^\d+\.\d+\.\d+/);
  });

  test('only loopback: the internet is out of reach', () => {
    const [r] = runBlocks([block("node -e \"require('dns').lookup('registry.npmjs.org', (e) => process.exit(e ? 3 : 0))\"")]);
    assert.equal(r!.code, 3, r!.output);
  });

  test('a block that keeps running serves the blocks after it, and is stopped at the end', () => {
    const [, r] = runBlocks([
      block("node -e \"require('http').createServer((q, s) => s.end('up')).listen(9443)\"", { keepsRunning: true }),
      block('curl -s http://127.0.0.1:9443/ | grep -qx up'),
    ]);
    assert.equal(r!.code, 0, r!.output);
  });
});

test('the extractor reads fences and markers; an unknown need is refused', () => {
  const md = [
    'text',
    '```sh',
    '# needs: a cluster',
    'kubectl get pods',
    '```',
    '```yaml',
    'a: 1',
    '```',
    '```bash',
    '# keeps running (Ctrl-C)',
    'x',
    '```',
  ].join('\n');
  const blocks = shellBlocks('x.md', md);
  assert.deepEqual(
    blocks.map((b) => [b.line, b.needs, b.keepsRunning]),
    [
      [2, 'a cluster', false],
      [9, undefined, true],
    ],
  );
  assert.throws(() => shellBlocks('x.md', '```sh\n# needs: a miracle\n```'), /x.md:2: "# needs: a miracle" is none of/);
});

test('the documentation has shell blocks in every file the issue names, and some run', () => {
  const all = docFiles().flatMap((f) => shellBlocks(f));
  assert.ok(docFiles().includes('README.md') && docFiles().some((f) => f.startsWith('docs/')) && docFiles().some((f) => f.startsWith('examples/')));
  assert.ok(all.filter((b) => b.needs === undefined).length >= 8, 'fewer runnable blocks than when this test was written');
});

test("no file tells a reader to run a plain `npx sidecar-injector` (outside the clone npx would fetch a stranger's package of that name)", () => {
  const tracked = spawnSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(tracked.status, 0, tracked.stderr);
  const files = tracked.stdout.split('\0').filter((f) => f !== '' && /\.(md|ya?ml|sh|tpl|json|ts|mjs)$/.test(f) && f !== 'test/support/shell-blocks.test.ts');
  assert.ok(files.length > 100, 'git ls-files listed the repository');
  const plain = /\bnpx +(?:-y +|--yes +)?sidecar-injector\b/;
  const found = files.flatMap((f) =>
    readFileSync(join(ROOT, f), 'utf8')
      .split('\n')
      .flatMap((line, i) => (plain.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
  );
  assert.deepEqual(found, [], 'write npx --no-install sidecar-injector (in the clone) or the installed sidecar-injector');
});

describe('every runnable shell block of the documentation runs as written', { skip }, () => {
  for (const file of docFiles()) {
    const blocks = shellBlocks(file);
    if (!blocks.some((b) => b.needs === undefined)) continue;
    test(file, () => {
      for (const r of runBlocks(blocks)) assert.equal(r.code, 0, `${file}:${r.block.line}:\n${r.block.text}\n--- output:\n${r.output}`);
    });
  }
});
