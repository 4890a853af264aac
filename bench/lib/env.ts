/**
 * @module bench/lib/env
 * Where and on what a benchmark ran, recorded with every result: date, CPU, cores, memory,
 * kernel, Node and tool versions, the load average (the machine may be shared), the commit,
 * and whether `serve` runs the real injection core (a stand-in would make the numbers moot).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../test/support/server-process.js';

export interface BenchEnv {
  date: string;
  cpu: string;
  cores: number;
  memoryGiB: number;
  kernel: string;
  node: string;
  commit: string;
  /** Uncommitted changes in the tree when the run started (other people's work in progress). */
  dirty: boolean;
  loadStart: number[];
  loadEnd?: number[];
  /** `src/cli/serve.ts` imports `injectPod` from the core, and the built serve does too. */
  coreWired: { source: boolean; built: boolean };
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

/** Does this serve module take the real core (`injectPod` from the inject module, imported statically or lazily)? */
function importsCore(text: string): boolean {
  return /\binjectPod\b/.test(text) && /['"]\.\.\/inject\/(index|pipeline)\.js['"]/.test(text);
}

/** The built serve takes the core: dist/cli/serve.js imports it, or the shipped bundle contains it. */
function builtHasCore(read: (p: string) => string): boolean {
  if (importsCore(read(join(REPO_ROOT, 'dist', 'cli', 'serve.js')))) return true;
  const dir = join(REPO_ROOT, 'dist', 'bin');
  return existsSync(dir) && readdirSync(dir).some((f) => f.endsWith('.mjs') && /\binjectPod\b/.test(read(join(dir, f))));
}

export function benchEnv(): BenchEnv {
  const list = cpus();
  const read = (p: string): string => (existsSync(p) ? readFileSync(p, 'utf8') : '');
  return {
    date: new Date().toISOString(),
    cpu: list[0]?.model ?? 'unknown',
    cores: list.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    kernel: release(),
    node: process.version,
    commit: git(['rev-parse', '--short', 'HEAD']),
    dirty: git(['status', '--porcelain', '--untracked-files=no']) !== '',
    loadStart: loadavg().map((x) => Math.round(x * 100) / 100),
    coreWired: { source: importsCore(read(join(REPO_ROOT, 'src', 'cli', 'serve.ts'))), built: builtHasCore(read) },
  };
}
