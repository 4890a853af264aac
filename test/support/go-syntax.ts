/**
 * @module test/support/go-syntax
 * The Go reference for the grammars copied from Go's standard library (time.ParseDuration,
 * regexp.Compile): testdata/go-syntax/main.go, standard library only, built on first use with
 * the Go on PATH (or /usr/local/go) and cached in the temp directory by the source's hash, as
 * testing/yaml-ref does. The corpus and Go's answers for it are committed
 * (testdata/go-syntax/corpus.json, expected.json), so the corpus is checked without Go;
 * `UPDATE_GOLDEN=1` with Go installed rewrites expected.json.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface GoAnswer {
  ok: boolean;
  nanos?: string;
  error?: string;
  names?: string[];
}

export interface GoSyntaxInput {
  durations: string[];
  regexps: string[];
}

export interface GoSyntaxOutput {
  go: string;
  durations: GoAnswer[];
  regexps: GoAnswer[];
}

const DIR = fileURLToPath(new URL('../../testdata/go-syntax/', import.meta.url));
const CORPUS_FILE = join(DIR, 'corpus.json');
const EXPECTED_FILE = join(DIR, 'expected.json');

export function readCorpus(): GoSyntaxInput {
  return JSON.parse(readFileSync(CORPUS_FILE, 'utf8')) as GoSyntaxInput;
}

/** What Go answered for the corpus when expected.json was written, with the corpus it saw. */
export function readExpected(): GoSyntaxOutput & { corpus: GoSyntaxInput } {
  return JSON.parse(readFileSync(EXPECTED_FILE, 'utf8')) as GoSyntaxOutput & { corpus: GoSyntaxInput };
}

function goBinary(): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/local/go/bin']) {
    if (dir !== '' && existsSync(join(dir, 'go'))) return join(dir, 'go');
  }
  return undefined;
}

/** Ask Go; or a reason why it cannot be asked (the live tests skip with it). */
export function goSyntaxReference(): ((input: GoSyntaxInput) => GoSyntaxOutput) | string {
  const go = goBinary();
  if (go === undefined) return 'Go is not installed (the committed answers in testdata/go-syntax/expected.json are still checked)';
  const source = readFileSync(join(DIR, 'main.go'), 'utf8');
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const cache = join(tmpdir(), 'sidecar-injector-go-syntax');
  const bin = join(cache, `go-syntax-${hash}`);
  if (!existsSync(bin)) {
    try {
      mkdirSync(cache, { recursive: true });
      // Standard library only: no module, no download (GOTOOLCHAIN=local: never fetch a toolchain).
      execFileSync(go, ['build', '-o', bin, 'main.go'], {
        cwd: DIR,
        env: { ...process.env, GO111MODULE: 'off', GOFLAGS: '', GOTOOLCHAIN: 'local', GOCACHE: join(cache, 'gocache') },
        stdio: 'pipe',
        timeout: 180_000,
      });
    } catch (err) {
      return `cannot build the Go reference: ${(err as Error).message.split('\n')[0]}`;
    }
  }
  return (input) => JSON.parse(execFileSync(bin, { input: JSON.stringify(input), maxBuffer: 1 << 28 }).toString()) as GoSyntaxOutput;
}

/** `UPDATE_GOLDEN=1`: write Go's answers for the corpus to expected.json. */
export function regenerateExpected(ask: (input: GoSyntaxInput) => GoSyntaxOutput): void {
  const corpus = readCorpus();
  writeFileSync(EXPECTED_FILE, `${JSON.stringify({ ...ask(corpus), corpus }, null, 1)}\n`);
}
