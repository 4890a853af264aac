import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { register } from './serve.js';
import { runCli } from './command-tree.js';
import { memoryIO, type MemoryIO } from '../../test/support/memory-io.js';
import { devCertificate } from '../certs/index.js';
import { atomicWrite } from '../../test/support/atomic-writer.js';
import { parseReview, postReview, send } from '../../test/support/https-client.js';
import { exchange, tlsConnect } from '../../test/support/raw-tls.js';
import { podReview, samplePod } from '../../test/support/review-fixtures.js';

/** Run `serve ARGS` in-process (real core, built-in config unless --config); resolves once it prints where it listens. */
async function serveInProcess(args: string[]) {
  const controller = new AbortController();
  const io: MemoryIO = Object.assign(memoryIO(), { signal: controller.signal });
  const program = new Command('sidecar-injector').exitOverride();
  register(program, io);
  const done = program.parseAsync(['serve', ...args], { from: 'user' });
  const deadline = Date.now() + 10_000;
  let port: number | undefined;
  while (port === undefined) {
    const m = /listening on https:\/\/[^:]+:(\d+)\/inject/.exec(io.out);
    if (m) port = Number(m[1]);
    else if (Date.now() > deadline) throw new Error(`serve did not start: ${io.err}`);
    else await Promise.race([done, new Promise((r) => setTimeout(r, 20))]);
  }
  return { io, port, stop: async () => (controller.abort(), done) };
}

test('serve with no TLS flags starts, prints a CA bundle that verifies the served certificate, and answers', async () => {
  const s = await serveInProcess(['--port', '0', '--address', '127.0.0.1']);
  try {
    const bundle = /^([A-Za-z0-9+/=]{100,})$/m.exec(s.io.out)?.[1];
    assert.ok(bundle, s.io.out);
    const caPem = Buffer.from(bundle, 'base64').toString('utf8');
    assert.match(caPem, /-----BEGIN CERTIFICATE-----/);
    assert.match(s.io.out, /curl -sk -H 'Content-Type: application\/json' --data @examples\/admission\/review-v1\.json https:\/\/127\.0\.0\.1:\d+\/inject/);
    const res = await postReview(s.port, podReview(samplePod(), { uid: 'cli-1' }), { ca: caPem, servername: 'localhost' });
    assert.equal(res.status, 200, 'the served certificate chains to the printed CA');
    assert.equal(parseReview(res).response.uid, 'cli-1');
    assert.ok(
      s.io.err.split('\n').some((l) => l.includes('"msg":"admission"')),
      'JSON log lines go to stderr',
    );
  } finally {
    await s.stop();
  }
});

test('serve --tls-dir reads tls.crt/tls.key as a mounted kubernetes.io/tls Secret lays them out', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'serve-tls-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const cert = await devCertificate({ hosts: ['webhook.example'] });
  await atomicWrite(dir, { 'tls.crt': cert.certPem, 'tls.key': cert.keyPem, 'ca.crt': cert.caPem });
  const s = await serveInProcess(['--port', '0', '--address', '127.0.0.1', '--tls-dir', dir, '--monitoring-port', '0']);
  try {
    assert.doesNotMatch(s.io.out, /development certificate/);
    const socket = await tlsConnect(s.port);
    assert.equal(socket.getPeerCertificate().fingerprint256, new X509Certificate(cert.certPem).fingerprint256);
    socket.destroy();
    const monitoring = Number(/monitoring on http:\/\/[^:]+:(\d+)/.exec(s.io.out)?.[1]);
    // Ready once the request path is warm (--warmup, on by default).
    const deadline = Date.now() + 30_000;
    let ready = await send({ port: monitoring, path: '/readyz', plain: true });
    while (ready.status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      ready = await send({ port: monitoring, path: '/readyz', plain: true });
    }
    assert.equal(ready.status, 200, ready.body);
    assert.equal((JSON.parse(ready.body) as { warm: boolean }).warm, true);
  } finally {
    await s.stop();
  }
});

test('serve refuses contradictory or incomplete TLS flags with a usage error', async () => {
  for (const args of [
    ['--tls-cert', 'a.crt'],
    ['--tls-key', 'a.key'],
    ['--tls-dir', '/tmp', '--tls-cert', 'a', '--tls-key', 'b'],
  ]) {
    const io = memoryIO();
    const program = new Command('sidecar-injector').exitOverride();
    register(program, io);
    await assert.rejects(program.parseAsync(['serve', '--port', '0', ...args], { from: 'user' }), (err: { code?: string }) => err.code === 'SI_USAGE');
  }
  const io = memoryIO();
  assert.equal(await runCli(['serve', '--on-error', 'maybe'], io), 2);
  assert.match(io.err, /deny or allow/);
});

test('--webhook-config needs a CA to publish and in-cluster credentials, and says so', async () => {
  const run = async (args: string[]) => {
    const program = new Command('sidecar-injector').exitOverride();
    register(program, memoryIO());
    return program.parseAsync(['serve', '--port', '0', '--address', '127.0.0.1', ...args], { from: 'user' });
  };
  await assert.rejects(
    run(['--webhook-config', 'injector', '--tls-cert', 'a.crt', '--tls-key', 'a.key']),
    (err: { code?: string; message: string }) => err.code === 'SI_USAGE' && /--tls-ca/.test(err.message),
  );
  const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
  delete process.env.KUBERNETES_SERVICE_HOST;
  delete process.env.KUBERNETES_SERVICE_PORT;
  try {
    await assert.rejects(run(['--webhook-config', 'injector']), (err: { code?: string }) => err.code === 'SI_CLUSTER_CONFIG');
  } finally {
    if (saved.host !== undefined) process.env.KUBERNETES_SERVICE_HOST = saved.host;
    if (saved.port !== undefined) process.env.KUBERNETES_SERVICE_PORT = saved.port;
  }
});

test('serve exits non-zero with the catalogue code when the certificate files are missing', async () => {
  const io = memoryIO();
  const program = new Command('sidecar-injector').exitOverride();
  register(program, io);
  await assert.rejects(
    program.parseAsync(['serve', '--port', '0', '--tls-cert', '/nonexistent/tls.crt', '--tls-key', '/nonexistent/tls.key'], { from: 'user' }),
    (e: { code?: string; message: string }) =>
      e.code === 'SI_CERT_INVALID' && /\/nonexistent\/tls\.crt: no such file or directory; give a certificate/.test(e.message),
  );
});

test('a real process: SIGTERM with requests in flight -> every request answered, exit status 0, promptly', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--address', '127.0.0.1'], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', () => undefined);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const deadline = Date.now() + 20_000;
  let port: number | undefined;
  while (port === undefined) {
    const m = /listening on https:\/\/[^:]+:(\d+)\/inject/.exec(out);
    if (m) port = Number(m[1]);
    else if (Date.now() > deadline) throw new Error(`no start: ${out}`);
    else await new Promise((r) => setTimeout(r, 50));
  }
  // Requests whose body is still arriving when SIGTERM lands.
  const body = Buffer.from(JSON.stringify(podReview(samplePod())));
  const sockets = await Promise.all(Array.from({ length: 5 }, () => tlsConnect(port)));
  for (const s of sockets) {
    s.write(`POST /inject HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    s.write(body.subarray(0, 50));
  }
  await new Promise((r) => setTimeout(r, 100));
  const signalled = Date.now();
  child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 100));
  const answers = await Promise.all(sockets.map((s) => exchange(s, body.subarray(50), 5000)));
  for (const a of answers) assert.match(a.data, /^HTTP\/1\.1 200 OK/);
  assert.equal(await exited, 0);
  assert.ok(Date.now() - signalled < 5000, 'exited within the bound');
});

test('serve with the product runtime (real config and core) starts and injects', async () => {
  const controller = new AbortController();
  const io: MemoryIO = Object.assign(memoryIO(), { signal: controller.signal });
  const running = runCli(['serve', '--port', '0', '--address', '127.0.0.1'], io);
  const deadline = Date.now() + 20_000;
  let port: number | undefined;
  while (port === undefined) {
    const m = /listening on https:\/\/[^:]+:(\d+)\/inject/.exec(io.out);
    if (m) port = Number(m[1]);
    else if (Date.now() > deadline) throw new Error(`serve did not start: ${io.err}`);
    else await Promise.race([running, new Promise((r) => setTimeout(r, 20))]);
  }
  const res = await postReview(port, podReview(samplePod(), { uid: 'product-1' }));
  assert.equal(res.status, 200);
  const review = parseReview(res);
  assert.equal(review.response.uid, 'product-1');
  assert.ok(review.response.patch, 'the real core injects the sample pod');
  controller.abort();
  assert.equal(await running, 0);
});
