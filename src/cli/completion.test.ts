/**
 * @module cli/completion.test
 * `completion bash|zsh|fish` scripts, run by the real shells: bash through its completion
 * function (COMP_WORDS), fish through `complete -C`, zsh by the specs its `_arguments` receives.
 * zsh and fish tests skip where the shell is not installed (scripts/apt-install.sh shells zsh fish).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { memoryIO } from '../../test/support/memory-io.js';
import { buildProgram, runCli } from './command-tree.js';

const dir = mkdtempSync(join(tmpdir(), 'si-completion-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function script(shell: string): Promise<string> {
  const io = memoryIO();
  assert.equal(await runCli(['completion', shell], io), 0, io.err);
  const path = join(dir, `c.${shell}`);
  writeFileSync(path, io.out);
  return path;
}

const has = (shell: string): boolean => spawnSync(shell, ['-c', 'exit 0']).status === 0;
const run = (shell: string, args: string[]): string => {
  const r = spawnSync(shell, args, { encoding: 'utf8', cwd: dir });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
};

describe('completion', () => {
  it('bash: commands, nested commands, flags after a flag value, -o formats, fixed choices', async () => {
    const path = await script('bash');
    const cases: [string[], string][] = [
      [['in'], 'inject'],
      [['config', 'ch'], 'check'],
      [['inject', '-n', 'config', '--fi'], '--filename'],
      [['status', '-o', ''], 'table json yaml'],
      [['manifests', '--failure-policy', ''], 'Fail Ignore'],
      [['completion', ''], 'bash zsh fish'],
      [['restart', '--ti'], '--timeout'],
      [['serve', '--kube'], '--kubeconfig'],
    ];
    const body = cases
      .map(
        ([words], i) =>
          `COMP_WORDS=(sidecar-injector ${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length}; _sidecar_injector; echo "${i}=\${COMPREPLY[*]}"`,
      )
      .join('\n');
    const out = run('bash', ['-c', `source ${path}\n${body}`]);
    cases.forEach(([words, want], i) => assert.match(out, new RegExp(`^${i}=${want}$`, 'm'), words.join(' ')));
    // Every command of the CLI is offered at the top level.
    const top = run('bash', ['-c', `source ${path}; COMP_WORDS=(sidecar-injector ''); COMP_CWORD=1; _sidecar_injector; echo "\${COMPREPLY[*]}"`])
      .trim()
      .split(' ');
    assert.deepEqual(
      top.sort(),
      buildProgram(memoryIO())
        .commands.map((c) => c.name())
        .sort(),
    );
  });

  it('fish: complete -C gives the same answers', { skip: has('fish') ? false : 'fish is not installed' }, async () => {
    const path = await script('fish');
    const ask = (line: string) =>
      run('fish', ['-c', `source ${path}; complete -C '${line}'`])
        .split('\n')
        .map((l) => l.split('\t')[0])
        .filter(Boolean);
    assert.deepEqual(ask('sidecar-injector config '), ['check']);
    assert.ok(ask('sidecar-injector inject -o ').includes('json'));
    assert.deepEqual(ask('sidecar-injector inject -n config --fi'), ['--filename']);
    assert.deepEqual(ask('sidecar-injector completion ').sort(), ['bash', 'fish', 'zsh']);
  });

  it('zsh: the script parses and hands _arguments specs with values, choices and files', { skip: has('zsh') ? false : 'zsh is not installed' }, async () => {
    const path = await script('zsh');
    run('zsh', ['-n', path]);
    // compdef needs compinit; the specs are what matters: print what _arguments receives.
    const specs = run('zsh', [
      '-c',
      `compdef() { :; }; source ${path}; _arguments() { print -rl -- "$@"; }; _sidecar_injector_inject; _sidecar_injector_manifests`,
    ]);
    assert.match(specs, /^\(-o --output\)-o\[output format, yaml or json\]:value:\{_alternative "formats:format:\(yaml json\)" "files:file:_files"\}$/m);
    assert.match(specs, /^\(-f --filename\)-f\[manifest to inject\]:value:_files$/m);
    assert.match(specs, /^--failure-policy\[Fail - opted-in pods wait while the webhook is down\]:value:\(Fail Ignore\)$/m);
  });
});
