/**
 * The body flood from the hardening issue, against a real `serve` process with its defaults:
 * 60 connections that each declare a 7,000,000-byte body and send all of it but the last byte.
 * The body budget (64 MiB) caps what is held at once: the rest get 503 at once, so RSS stays far
 * below the Deployment's 512 Mi limit (without the budget the same flood took 484 MB), and the
 * server goes on answering admissions once the flood is over.
 *
 * Only memory is asserted, with generous bounds (the machine is shared): the flood must raise RSS
 * well above the start (or the test proves nothing), and its peak must stay within the bound.
 */
import { spawn, spawnSync } from 'node:child_process';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devCertificate } from '../../src/certs/index.js';
import { postReview } from '../support/https-client.js';
import { MiB, procSample } from '../support/proc-stats.js';
import { podReview, samplePod } from '../support/review-fixtures.js';
import { startServeProcess } from '../support/server-process.js';

const DECLARED = 7_000_000;
const CONNECTIONS = 60;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rss(pid: number): number {
  const s = procSample(pid);
  assert.ok(s, 'the server process is running');
  return s.rssBytes;
}

/**
 * The flood: one curl process with 60 parallel uploads, each declaring DECLARED bytes and sending
 * one byte less (so the server holds what it buffered until the client goes away). curl, not a
 * Node client: a Node process writing 60 large TLS bodies at once stalls its own reads on this
 * machine (curl, like the apiserver's Go client, does not).
 */
function startFlood(port: number, body: string): { stop: () => Promise<void> } {
  // Options before the URLs apply to every transfer (repeating --data-binary would join the bodies).
  const args = ['-sk', '--parallel', '--parallel-max', String(CONNECTIONS), '-m', '60', '-H', 'Content-Type: application/json', '-H', 'Expect:'];
  args.push('-H', `Content-Length: ${DECLARED}`, '--data-binary', `@${body}`);
  for (let i = 0; i < CONNECTIONS; i++) args.push('-o', '/dev/null', `https://127.0.0.1:${port}/inject`);
  const child = spawn('curl', args, { stdio: 'ignore' });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    async stop() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

function hasCurl(): boolean {
  return spawnSync('curl', ['--version']).status === 0;
}

test('a body flood is held to the body budget, and admissions go on after it', { skip: hasCurl() ? false : 'curl is not installed' }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'si-flood-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const dev = await devCertificate({ hosts: ['localhost'] });
  writeFileSync(join(dir, 'tls.crt'), dev.certPem);
  writeFileSync(join(dir, 'tls.key'), dev.keyPem);
  const readyBody = JSON.stringify(podReview(samplePod()));
  const server = await startServeProcess({
    fromSource: true,
    readyBody,
    flags: ['--tls-cert', join(dir, 'tls.crt'), '--tls-key', join(dir, 'tls.key'), '--log-level', 'error'],
  });
  t.after(() => server.stop(5000));

  // Warm up (JIT, caches, TLS), then settle: the start is the RSS of a server that has worked.
  for (let i = 0; i < 50; i++) await postReview(server.port, podReview(samplePod(`warm-${i}`)));
  await sleep(1000);
  const start = rss(server.pid);

  const body = join(dir, 'body.json');
  writeFileSync(body, Buffer.alloc(DECLARED - 1, 0x20));
  const flooding = startFlood(server.port, body);
  // The peak: wait (bounded) until the server holds a budget's worth of bodies, then a moment more.
  let peak = rss(server.pid);
  for (let i = 0; i < 80 && peak < start + 48 * MiB; i++) {
    await sleep(250);
    peak = Math.max(peak, rss(server.pid));
  }
  await sleep(500);
  peak = Math.max(peak, rss(server.pid));
  await flooding.stop();

  // Normal admissions go on.
  const after = await postReview(server.port, podReview(samplePod('after')));
  assert.equal(after.status, 200, 'the server answers an admission after the flood');
  const flood = peak - start;
  const m = (b: number) => `${(b / MiB).toFixed(1)} MiB`;
  t.diagnostic(`RSS start ${m(start)}, peak ${m(peak)} (+${m(flood)})`);
  assert.ok(flood > 40 * MiB, `the flood raised RSS (start ${m(start)}, peak ${m(peak)}); otherwise this test proves nothing`);
  // The budget (64 MiB of bodies) plus what reading and refusing the rest costs; 411 MB without it.
  assert.ok(flood < 256 * MiB, `the flood's growth stayed bounded by the body budget: start ${m(start)}, peak ${m(peak)}`);
});
