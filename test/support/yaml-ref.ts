/**
 * @module test/support/yaml-ref
 * The reference YAML decoders for differential tests: testdata/yaml/go-yaml-v2/main.go decodes
 * documents exactly as sigs.k8s.io/yaml (go-yaml v2) does; go-yaml-v3 does the same with go-yaml
 * v3, to show where the two differ. Built on first use with Debian's Go and
 * golang-gopkg-yaml.v2-dev / .v3-dev (no module download); when those are absent the tests that
 * need them skip. The binary is cached in the temp directory, keyed by the source's hash.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface RefResult {
  value?: unknown;
  error?: string;
}

export type YamlReference = (docs: readonly string[]) => RefResult[];

const GOPATH = '/usr/share/gocode';

/** The reference decoder (go-yaml v2 unless asked for v3), or a reason why it is unavailable. */
export function yamlReference(version: 'v2' | 'v3' = 'v2'): YamlReference | string {
  const SOURCE_DIR = fileURLToPath(new URL(`../../testdata/yaml/go-yaml-${version}/`, import.meta.url));
  if (!existsSync(join(GOPATH, `src/gopkg.in/yaml.${version}`))) {
    return `go-yaml ${version} sources not installed (apt-get install golang-gopkg-yaml.${version}-dev)`;
  }
  let source: string;
  try {
    source = readFileSync(join(SOURCE_DIR, 'main.go'), 'utf8');
  } catch {
    return 'reference source missing';
  }
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), 'sidecar-injector-yaml-ref');
  const bin = join(dir, `yaml-ref-${version}-${hash}`);
  if (!existsSync(bin)) {
    try {
      mkdirSync(dir, { recursive: true });
      execFileSync('go', ['build', '-o', bin, '.'], {
        cwd: SOURCE_DIR,
        env: { ...process.env, GO111MODULE: 'off', GOPATH, GOFLAGS: '', GOCACHE: join(dir, 'gocache') },
        stdio: 'pipe',
        timeout: 120_000,
      });
    } catch (err) {
      return `cannot build the Go reference: ${(err as Error).message.split('\n')[0]}`;
    }
  }
  return (docs) => JSON.parse(execFileSync(bin, { input: JSON.stringify(docs), maxBuffer: 1 << 30 }).toString()) as RefResult[];
}
