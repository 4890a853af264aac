/**
 * @module testing/yaml-ref
 * The reference YAML decoder for differential tests: testdata/manifests/yaml-ref/main.go decodes
 * documents exactly as sigs.k8s.io/yaml (go-yaml v2) does. Built on first use with Debian's Go
 * and golang-gopkg-yaml.v2-dev (no module download); when those are absent the tests that need it
 * skip. The binary is cached in the temp directory, keyed by the source's hash.
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

const SOURCE_DIR = fileURLToPath(new URL('../../testdata/manifests/yaml-ref/', import.meta.url));
const GOPATH = '/usr/share/gocode';

/** The reference decoder, or a reason why it is unavailable. */
export function yamlReference(): YamlReference | string {
  if (!existsSync(join(GOPATH, 'src/gopkg.in/yaml.v2'))) return 'go-yaml v2 sources not installed (apt-get install golang-gopkg-yaml.v2-dev)';
  let source: string;
  try {
    source = readFileSync(join(SOURCE_DIR, 'main.go'), 'utf8');
  } catch {
    return 'reference source missing';
  }
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), 'sidecar-injector-yaml-ref');
  const bin = join(dir, `yaml-ref-${hash}`);
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
