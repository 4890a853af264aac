/**
 * @module scripts/release/test-support
 * What the release tests share: building the single executable into a scratch directory, the
 * list of every CLI command (so a new command is covered without editing the tests), and one
 * admission request against a served webhook with its answer checked.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildProgram } from '../../src/cli/command-tree.js';
import type { Command } from 'commander';
import { spawnServer, waitReady, type SpawnOptions } from '../../test/support/server-process.js';
import { EXE_NAME } from './image-spec.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const REVIEW_FILE = join(ROOT, 'examples', 'admission', 'review-v1.json');
export const EXAMPLE = join(ROOT, 'examples', 'istio-proxy', 'app.yaml');
export const EXAMPLE_GOLDEN = join(ROOT, 'testdata', 'inject', 'example-istio-proxy.injected.yaml');

/** `npm run build:exe` into `dir`; returns the executable's path. */
export function buildExe(dir: string): string {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-exe.mjs'), '--out', dir], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`build-exe failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return join(dir, EXE_NAME);
}

/** Every command path of the CLI, the program itself first: [], ['certs'], ['template', 'render'], ... */
export function commandPaths(): string[][] {
  const program = buildProgram({ readStdin: async () => Buffer.alloc(0), stdout: () => undefined, stderr: () => undefined });
  const paths: string[][] = [];
  const walk = (cmd: Command, path: string[]): void => {
    paths.push(path);
    for (const sub of cmd.commands) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  return paths;
}

export interface ReviewAnswer {
  status: number;
  review: { apiVersion?: string; kind?: string; response?: { uid?: string; allowed?: boolean; patchType?: string; patch?: string } };
}

/** POST examples/admission/review-v1.json to https://127.0.0.1:port/inject (any certificate). */
export function postReview(port: number): Promise<ReviewAnswer> {
  const body = readFileSync(REVIEW_FILE);
  return new Promise((resolve, reject) => {
    const r = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/inject',
        agent: false,
        rejectUnauthorized: false,
        headers: { 'Content-Type': 'application/json', 'Content-Length': body.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, review: JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReviewAnswer['review'] });
          } catch (err) {
            reject(err instanceof Error ? err : new Error(String(err)));
          }
        });
        res.on('error', reject);
      },
    );
    r.setTimeout(10_000, () => r.destroy(new Error('no answer within 10 s')));
    r.on('error', reject);
    r.end(body);
  });
}

/** The review's uid, for checking that the answer belongs to the request. */
function reviewUid(): string {
  return (JSON.parse(readFileSync(REVIEW_FILE, 'utf8')) as { request: { uid: string } }).request.uid;
}

/** The JSON patch of an answer, decoded. */
function decodedPatch(answer: ReviewAnswer): { op: string; path: string }[] {
  const patch = answer.review.response?.patch;
  if (patch === undefined) throw new Error(`no patch in ${JSON.stringify(answer.review)}`);
  return JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) as { op: string; path: string }[];
}

/**
 * Start a `serve` process listening on 127.0.0.1:`port`, wait until it answers, send the
 * example review and check the answer (same uid, allowed, a patch that adds a container), run
 * `whileServing`, then stop it with SIGTERM and expect a clean exit.
 */
export async function serveOneReview(spawn: SpawnOptions & { port: number; timeoutMs: number }, whileServing: () => void = () => undefined): Promise<void> {
  const spawnedAt = performance.now();
  const server = spawnServer(spawn);
  server.port = spawn.port;
  try {
    await waitReady(server, readFileSync(REVIEW_FILE), { spawnedAt, timeoutMs: spawn.timeoutMs });
    const answer = await postReview(spawn.port);
    assert.equal(answer.status, 200);
    assert.equal(answer.review.response?.uid, reviewUid());
    assert.equal(answer.review.response?.allowed, true);
    assert.ok(
      decodedPatch(answer).some((op) => op.path.startsWith('/spec/containers')),
      'the patch adds no container',
    );
    whileServing();
  } finally {
    // A container runtime forwards SIGTERM too: the webhook drains and exits 0.
    assert.equal(await server.stop(10_000), 0, server.output());
  }
}
