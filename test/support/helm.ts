/**
 * @module test/support/helm
 * The real `helm` binary for tests (v3.22, built from pinned Go modules by e2e/build/build.sh).
 * Where it lives: `SI_HELM` if set, else the versioned cache directory that
 * `build.sh --print-bin-dir` names (it builds nothing and needs no Go, so it takes milliseconds).
 * When helm is not built there, tests skip with the reason instead of starting a cold build that
 * takes many minutes; CI runs build.sh first, so there helm is always present.
 *
 * Each {@link Helm} runs helm with its own empty HELM_*_HOME directories, so neither the user's
 * repositories and plugins nor a kubeconfig can change what is rendered.
 */
import { execFile, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { isPlainObject } from '../../src/util/json.js';

const BUILD_SH = fileURLToPath(new URL('../../e2e/build/build.sh', import.meta.url));

export interface HelmRelease {
  name: string;
  namespace: string;
}

export interface HelmRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The helm binary's path, or why there is none (a reason for `skip`). A wrong `SI_HELM` or a
 * build.sh that cannot name its directory is a broken setup, not a missing binary: that throws.
 */
export function locateHelm(): { path: string } | { skip: string } {
  const fromEnv = process.env.SI_HELM;
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!isExecutable(fromEnv)) throw new Error(`SI_HELM=${fromEnv} is not an executable file`);
    return { path: fromEnv };
  }
  const probe = spawnSync('bash', [BUILD_SH, '--print-bin-dir'], { encoding: 'utf8', timeout: 30_000 });
  const dir = probe.stdout?.trim().split('\n').pop() ?? '';
  if (probe.status !== 0 || dir === '') throw new Error(`${BUILD_SH} --print-bin-dir failed (status ${probe.status}): ${probe.stderr ?? probe.error?.message}`);
  const path = join(dir, 'helm');
  if (!isExecutable(path)) return { skip: `helm is not built (${path} is missing): run e2e/build/build.sh (a cold build takes minutes) or set SI_HELM` };
  return { path };
}

/** Every non-empty YAML document of helm's output, in order. */
function parseRendered(text: string): Record<string, unknown>[] {
  const objects: Record<string, unknown>[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(`helm's output does not parse: ${doc.errors[0]!.message}\n${text}`);
    const value = doc.toJS() as unknown;
    if (value === null || value === undefined) continue;
    if (!isPlainObject(value)) throw new Error(`a rendered document is not an object:\n${text}`);
    objects.push(value);
  }
  return objects;
}

class HelmError extends Error {
  constructor(
    readonly args: string[],
    readonly run: HelmRun,
  ) {
    super(`helm ${args.join(' ')} exited ${run.code}: ${run.stderr.trim()}`);
  }
}

export class Helm {
  private values = 0;

  private constructor(
    readonly path: string,
    private readonly home: string,
  ) {}

  static async open(path: string): Promise<Helm> {
    return new Helm(path, await mkdtemp(join(tmpdir(), 'si-helm-home-')));
  }

  async dispose(): Promise<void> {
    await rm(this.home, { recursive: true, force: true });
  }

  run(args: string[]): Promise<HelmRun> {
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: this.home,
      HELM_CACHE_HOME: join(this.home, 'cache'),
      HELM_CONFIG_HOME: join(this.home, 'config'),
      HELM_DATA_HOME: join(this.home, 'data'),
      KUBECONFIG: join(this.home, 'no-kubeconfig'),
    };
    return new Promise((resolve) => {
      execFile(this.path, args, { env, encoding: 'utf8', maxBuffer: 64 << 20, timeout: 120_000 }, (err, stdout, stderr) => {
        // A process that could not start or was killed has no exit code: -1, with Node's message.
        if (err === null) resolve({ code: 0, stdout, stderr });
        else resolve({ code: typeof err.code === 'number' ? err.code : -1, stdout, stderr: stderr || err.message });
      });
    });
  }

  /** Writes values (JSON is YAML) to a file of its own, for `-f`. */
  async valuesFile(values: Record<string, unknown>): Promise<string> {
    const file = join(this.home, `values-${++this.values}.json`);
    await writeFile(file, JSON.stringify(values));
    return file;
  }

  /** `helm template`: the objects, or a {@link HelmError} carrying helm's message. */
  async template(chart: string, release: HelmRelease, values: Record<string, unknown> = {}, extra: string[] = []): Promise<Record<string, unknown>[]> {
    const args = ['template', release.name, chart, '--namespace', release.namespace, '-f', await this.valuesFile(values), ...extra];
    const run = await this.run(args);
    if (run.code !== 0) throw new HelmError(args, run);
    return parseRendered(run.stdout);
  }

  /** `helm lint` (strict: warnings fail too). */
  async lint(chart: string, values: Record<string, unknown> = {}, strict = true): Promise<HelmRun> {
    return this.run(['lint', ...(strict ? ['--strict'] : []), chart, '-f', await this.valuesFile(values)]);
  }

  /**
   * NOTES.txt as the real engine renders it. `helm template` leaves notes out and
   * `helm install --dry-run` needs a cluster, so a copy of the chart gains one manifest that
   * includes the NOTES.txt template (every file under templates/ is a named template) into a
   * ConfigMap, and only that manifest is shown.
   */
  async notes(chart: string, release: HelmRelease, values: Record<string, unknown> = {}): Promise<string> {
    const copy = join(this.home, `chart-${++this.values}`);
    await cp(chart, copy, { recursive: true });
    const chartName = (await this.run(['show', 'chart', chart])).stdout.match(/^name: (.+)$/m)?.[1]?.trim();
    if (chartName === undefined) throw new Error(`cannot read the chart name of ${chart}`);
    const probe = 'templates/zz-notes-under-test.yaml';
    await writeFile(
      join(copy, probe),
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  notes: {{ include "${chartName}/templates/NOTES.txt" . | toJson }}\n`,
    );
    const [cm] = await this.template(copy, release, values, ['--show-only', probe]);
    const notes = (cm?.data as Record<string, unknown> | undefined)?.notes;
    if (typeof notes !== 'string') throw new Error('the notes probe rendered no text');
    return notes;
  }
}
