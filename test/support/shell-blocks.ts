/**
 * @module test/support/shell-blocks
 * The shell blocks of the documentation (README.md, docs/*.md, examples/*\/README.md), and a
 * sandbox that runs them as a reader would: one file's blocks in order, in one scratch
 * directory, so a block sees what the blocks above it wrote. A block that cannot run there
 * says why on its first line, `# needs: ...` (a cluster, a registry, ...): readers see the
 * same note. A block that starts a server says `# keeps running`; it runs in the background
 * while the blocks after it talk to it.
 *
 * The sandbox is a private network and PID namespace (`unshare`): loopback only, so a block
 * cannot reach the internet and its ports (serve's 9443) cannot collide with anything else on
 * the machine, and every process a block started dies with it. `sidecar-injector` and
 * `npx --no-install sidecar-injector` run this checkout's CLI from the sources.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, chmodSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Why a block does not run in the sandbox; each is run somewhere else or by the reader only. */
const NEEDS = {
  // The e2e scenarios cover what these do. Run as written on the e2e node (scenario
  // 27-docs-cluster): README.md's cluster blocks but the revision one, and the policy blocks of
  // docs/policy-mode.md and examples/policy-nginx-sidecar; the other files' are still to do.
  'a cluster': 'kubectl or helm against a cluster',
  'the e2e host': 'root, Go and minutes: the e2e suite itself',
  'a fresh clone': 'npm ci in the checkout (npm test and CI do it)',
  'a container registry': 'pushes an image',
  'your own files': 'inputs the reader brings (an Istio ConfigMap, a kpt package)',
  kustomize: 'kustomize, not installed here',
} as const;

type Need = keyof typeof NEEDS;

export interface ShellBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  text: string;
  /** From `# needs: <need>[, more words]` on the block's first line. */
  needs?: Need;
  /** `# keeps running`: a server the following blocks use. */
  keepsRunning: boolean;
}

/** The documentation files whose shell blocks must run as written. */
export function docFiles(): string[] {
  const examples = readdirSync(join(ROOT, 'examples'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(ROOT, 'examples', d.name, 'README.md')))
    .map((d) => `examples/${d.name}/README.md`);
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs.sort(), ...examples.sort()];
}

const FENCE = /^```(sh|bash|shell)\s*$/;

/** The shell blocks of one Markdown file (fences marked sh, bash or shell). */
export function shellBlocks(file: string, markdown = readFileSync(join(ROOT, file), 'utf8')): ShellBlock[] {
  const lines = markdown.split('\n');
  const out: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!FENCE.test(lines[i]!)) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    const first = body[0] ?? '';
    const need = /^# needs: (.*)$/.exec(first)?.[1];
    const known =
      need === undefined ? undefined : (Object.keys(NEEDS) as Need[]).find((n) => need === n || need.startsWith(`${n},`) || need.startsWith(`${n} `));
    if (need !== undefined && known === undefined) throw new Error(`${file}:${start + 2}: "# needs: ${need}" is none of: ${Object.keys(NEEDS).join('; ')}`);
    out.push({ file, line: start + 1, text: body.join('\n'), needs: known, keepsRunning: /^# keeps running\b/.test(first) });
  }
  return out;
}

export interface BlockResult {
  block: ShellBlock;
  code: number | null;
  output: string;
}

/** This checkout's CLI from the sources (the sandbox's default `sidecar-injector`). */
const SOURCE_CLI = `"${process.execPath}" --import tsx "${join(ROOT, 'src/cli/main.ts')}"`;

/**
 * A scratch directory as a reader's clone looks to a block: the repository's files (read only
 * by convention, linked), and `.bin` with `sidecar-injector` running `cli` (a shell command
 * line; the e2e scenario gives the built bundle) and `npx --no-install sidecar-injector` running the same.
 */
export function sandbox(cli = SOURCE_CLI): { dir: string; bin: string } {
  const dir = mkdtempSync(join(tmpdir(), 'si-docs-'));
  for (const name of ['examples', 'deploy', 'defaults', 'e2e', 'node_modules', 'package.json', 'src', 'testdata', 'tsconfig.json']) {
    symlinkSync(join(ROOT, name), join(dir, name));
  }
  const bin = join(dir, '.bin');
  mkdirSync(bin);
  const write = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  write('sidecar-injector', `exec ${cli} "$@"`);
  // `npx --no-install sidecar-injector` in a clone runs the package's own bin: the same CLI. A
  // plain `npx` of the name fails the block: outside the clone npx would fetch whatever
  // package of that name the registry has (the name is not ours) and run it.
  write(
    'npx',
    [
      '[ "$1" = --no-install ] || { echo "npx $1: the docs must say npx --no-install (a plain npx may fetch and run a package of a stranger)" >&2; exit 127; }',
      'shift',
      '[ "$1" = sidecar-injector ] || { echo "npx $1: only npx --no-install sidecar-injector runs in the docs sandbox" >&2; exit 127; }',
      'shift',
      'exec sidecar-injector "$@"',
    ].join('\n'),
  );
  return { dir, bin };
}

/** A block as a script: a failing command fails the block (`set -eo pipefail`). */
export function blockScript(b: ShellBlock): string {
  return `set -eo pipefail\n${b.text}\n`;
}

/** Waits for a listening TCP socket in the sandbox's own network namespace: the server is up. */
const WAIT_FOR_LISTENER = 'for _ in $(seq 1 600); do grep -qs " 0A " /proc/net/tcp /proc/net/tcp6 && break; sleep 0.1; done';

/**
 * Run the blocks that can run (no `needs`) of one file, in order, in one sandbox. Each block
 * runs under `set -eo pipefail`, so a failing command fails its block.
 */
export function runBlocks(blocks: readonly ShellBlock[], timeoutMs = 180_000): BlockResult[] {
  const runnable = blocks.filter((b) => b.needs === undefined);
  if (runnable.length === 0) return [];
  const { dir, bin } = sandbox();
  try {
    const script = ['ip link set lo up', `cd "${dir}"`, `export PATH="${bin}:$PATH" HOME="${process.env.HOME ?? '/root'}"`];
    runnable.forEach((b, i) => {
      writeFileSync(join(dir, `.block-${i}.sh`), blockScript(b));
      if (b.keepsRunning) {
        script.push(`bash .block-${i}.sh >.out-${i} 2>&1 &`, WAIT_FOR_LISTENER, `echo 0 >.rc-${i}`);
      } else {
        script.push(`bash .block-${i}.sh >.out-${i} 2>&1; echo $? >.rc-${i}`);
      }
    });
    const run = spawnSync('unshare', ['--user', '--map-root-user', '--net', '--pid', '--mount-proc', '--kill-child', 'bash', '-c', script.join('\n')], {
      encoding: 'utf8',
      timeout: timeoutMs,
      // unshare waits out a SIGTERM; killed, it takes the namespace's processes with it (--kill-child).
      killSignal: 'SIGKILL',
    });
    return runnable.map((block, i) => {
      const read = (f: string) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8') : '');
      const rc = read(`.rc-${i}`).trim();
      const output = read(`.out-${i}`) + (rc === '' ? `\n(not run: ${run.error?.message ?? run.stderr})` : '');
      return { block, code: rc === '' ? null : Number(rc), output };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
