/**
 * Hot reload against a live server, with requests in flight: config swapped through a
 * kubelet-style `..data` symlink (hostile class 28 for the bad ones), certificates rotated in a
 * `kubernetes.io/tls` Secret layout (class 29 for the bad ones).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devCertificate } from '../certs/index.js';
import { oddCertificate } from '../../test/support/cert-fixtures.js';
import { atomicWrite } from '../../test/support/atomic-writer.js';
import { realConfig, startHarness, type Harness } from '../../test/support/webhook-harness.js';
import { decodePatch, keepAliveAgent, parseReview, postReview, send } from '../../test/support/https-client.js';
import { podReview, samplePod } from '../../test/support/review-fixtures.js';
import { loadConfig } from '../profiles/index.js';
import { tlsConnect } from '../../test/support/raw-tls.js';

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'webhook-reload-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function until<T>(fn: () => Promise<T | undefined>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`not reached within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A config whose one template adds the container `name` running `image`. */
function sidecarConfig(name: string, image: string): string {
  return `templates:\n  sidecar: |\n    spec:\n      containers:\n      - name: ${name}\n        image: ${image}\n`;
}

/** The sidecar (name, image) a response injected. */
async function injectedSidecar(port: number, agent?: import('node:https').Agent): Promise<string> {
  const res = await postReview(port, podReview(samplePod()), agent ? { agent } : {});
  assert.equal(res.status, 200);
  const ops = decodePatch(parseReview(res)) as { path: string; value: { name: string; image: string } }[];
  const op = ops.find((o) => o.path === '/spec/containers/-');
  assert.ok(op, 'a sidecar was added');
  return `${op.value.name}@${op.value.image}`;
}

/** Requests in a loop on `workers` keep-alive connections until stopped; every answer is recorded. */
function trafficLoop(port: number, workers = 4) {
  let stop = false;
  const seen: string[] = [];
  const errors: string[] = [];
  const agent = keepAliveAgent(workers);
  const runs = Array.from({ length: workers }, async (_, i) => {
    while (!stop) {
      try {
        // Every other worker uses a fresh connection, so new handshakes happen during swaps too.
        seen.push(await injectedSidecar(port, i % 2 === 0 ? agent : undefined));
      } catch (err) {
        errors.push((err as Error).message);
      }
    }
  });
  return {
    seen,
    errors,
    async stop() {
      stop = true;
      await Promise.all(runs);
      agent.destroy();
    },
  };
}

async function servedFingerprint(port: number): Promise<string> {
  const s = await tlsConnect(port);
  const fp = s.getPeerCertificate().fingerprint256;
  s.destroy();
  return fp;
}

const fingerprint = (pem: string): string => new X509Certificate(pem).fingerprint256;

async function readyz(h: Harness): Promise<{ status: number; body: Record<string, Record<string, unknown>> }> {
  const r = await send({ port: h.port, path: '/readyz' });
  return { status: r.status, body: JSON.parse(r.body) as Record<string, Record<string, unknown>> };
}

test('#28 a config swapped through ..data goes live within 2 s while requests are in flight; none sees a mix', async (t) => {
  const dir = await tempDir(t);
  await atomicWrite(dir, { config: sidecarConfig('sidecar-a', 'proxy:1') });
  const h = await startHarness({
    config: realConfig(dir),
    reload: { debounceMs: 50, pollMs: 60_000 }, // the watch, not the poll, must find it
  });
  t.after(() => h.server.shutdown());
  assert.equal(await injectedSidecar(h.port), 'sidecar-a@proxy:1');
  const traffic = trafficLoop(h.port);
  await new Promise((r) => setTimeout(r, 100));
  const swappedAt = Date.now();
  await atomicWrite(dir, { config: sidecarConfig('sidecar-b', 'proxy:2') });
  await until(async () => ((await injectedSidecar(h.port)) === 'sidecar-b@proxy:2' ? true : undefined), 2000);
  const live = Date.now() - swappedAt;
  await new Promise((r) => setTimeout(r, 100));
  await traffic.stop();
  assert.deepEqual(traffic.errors, []);
  assert.ok(traffic.seen.length > 20, `${traffic.seen.length} requests during the swap`);
  assert.deepEqual(new Set(traffic.seen), new Set(['sidecar-a@proxy:1', 'sidecar-b@proxy:2']), 'only whole configs, old or new');
  const last = traffic.seen.slice(-4);
  assert.ok(
    last.every((s) => s === 'sidecar-b@proxy:2'),
    `after the swap only the new config (${live} ms)`,
  );
  const detail = await readyz(h);
  assert.equal(detail.body.config.hash, (await loadConfig(dir)).hash);
  assert.equal(detail.body.config.reloads, 1);
});

test('#28 invalid, empty, half-written and deleted configs keep the last good one, are counted, visible in /readyz, and the server stays ready', async (t) => {
  const dir = await tempDir(t);
  await atomicWrite(dir, { config: sidecarConfig('sidecar-proxy', 'proxy:1') });
  const h = await startHarness({ config: realConfig(dir), reload: { debounceMs: 20, pollMs: 60_000 } });
  t.after(() => h.server.shutdown());
  const traffic = trafficLoop(h.port, 2);
  const bad: [string, () => Promise<void>][] = [
    ['invalid syntax', () => atomicWrite(dir, { config: '{"templates": ' })],
    ['invalid schema', () => atomicWrite(dir, { config: 'templates: 42\n' })],
    ['empty', () => atomicWrite(dir, { config: '' })],
    ['half-written in place', () => writeFile(join(dir, '..data', 'config'), 'templates:\n  sidecar: "spec:\n')],
    ['deleted', () => unlink(join(dir, 'config'))],
  ];
  let failures = 0;
  for (const [name, apply] of bad) {
    await apply();
    await h.server.reloadNow();
    failures++;
    assert.equal(await injectedSidecar(h.port), 'sidecar-proxy@proxy:1', `${name}: the last good config serves`);
    const r = await readyz(h);
    assert.equal(r.status, 200, `${name}: still ready`);
    assert.ok(r.body.config.lastError, `${name}: the error is shown`);
    assert.equal(r.body.config.failures, failures, `${name}: counted once`);
    await h.server.reloadNow(); // the same bad content again is not counted again
    assert.equal((await readyz(h)).body.config.failures, failures);
  }
  const metrics = await send({ port: h.port, path: '/metrics' });
  assert.match(metrics.body, new RegExp(`sidecar_injector_reloads_total\\{kind="config",result="failure"\\} ${failures}`));
  assert.match(metrics.body, /^sidecar_injector_last_reload_successful\{kind="config"\} 0$/m);
  assert.ok(h.logs.some((l) => l.level === 'error' && l.subject === 'config'));
  await atomicWrite(dir, { config: sidecarConfig('sidecar-proxy', 'proxy:3') });
  await h.server.reloadNow();
  assert.equal(await injectedSidecar(h.port), 'sidecar-proxy@proxy:3');
  assert.equal((await readyz(h)).body.config.lastError, undefined);
  await traffic.stop();
  assert.deepEqual(traffic.errors, []);
});

test('#29 a rotated certificate is served to new connections within seconds, with no failed request', async (t) => {
  const dir = await tempDir(t);
  const a = await devCertificate({ hosts: ['localhost'] });
  const b = await devCertificate({ hosts: ['localhost'] });
  await atomicWrite(dir, { 'tls.crt': a.certPem, 'tls.key': a.keyPem });
  const h = await startHarness({
    tls: { kind: 'files', certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') },
    reload: { debounceMs: 50, pollMs: 60_000 },
  });
  t.after(() => h.server.shutdown());
  assert.equal(await servedFingerprint(h.port), fingerprint(a.certPem));
  const traffic = trafficLoop(h.port);
  await new Promise((r) => setTimeout(r, 100));
  await atomicWrite(dir, { 'tls.crt': b.certPem, 'tls.key': b.keyPem });
  await until(async () => ((await servedFingerprint(h.port)) === fingerprint(b.certPem) ? true : undefined), 2000);
  await new Promise((r) => setTimeout(r, 100));
  await traffic.stop();
  assert.deepEqual(traffic.errors, [], 'no request failed across the rotation');
  const metrics = await send({ port: h.port, path: '/metrics' });
  assert.match(
    metrics.body,
    new RegExp(`sidecar_injector_certificate_expiry_timestamp_seconds\\{certificate="serving"\\} ${b.notAfter.getTime() / 1000}`),
    'the expiry follows the reload',
  );
  assert.match(metrics.body, /sidecar_injector_reloads_total\{kind="cert",result="success"\} 1/);
  assert.match(metrics.body, /^sidecar_injector_last_reload_successful\{kind="cert"\} 1$/m);
});

test('#29 expired, not-yet-valid, mismatched, SAN-less, truncated and missing certificates are refused; the old one keeps serving', async (t) => {
  const dir = await tempDir(t);
  const good = await devCertificate({ hosts: ['localhost'] });
  const other = await devCertificate({ hosts: ['localhost'] });
  await atomicWrite(dir, { 'tls.crt': good.certPem, 'tls.key': good.keyPem });
  const h = await startHarness({
    tls: { kind: 'files', certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') },
    reload: { debounceMs: 20, pollMs: 60_000 },
  });
  t.after(() => h.server.shutdown());
  const day = 86_400_000;
  const expired = await oddCertificate({ dnsNames: ['localhost'], notBefore: new Date(Date.now() - 10 * day), notAfter: new Date(Date.now() - day) });
  const future = await oddCertificate({ dnsNames: ['localhost'], notBefore: new Date(Date.now() + day), notAfter: new Date(Date.now() + 10 * day) });
  const noSan = await oddCertificate({});
  const traffic = trafficLoop(h.port, 2);
  const cases: [string, Record<string, string> | 'missing', RegExp][] = [
    ['expired', { 'tls.crt': expired.certPem, 'tls.key': expired.keyPem }, /expired/],
    ['not yet valid', { 'tls.crt': future.certPem, 'tls.key': future.keyPem }, /not valid until/],
    ['key mismatch', { 'tls.crt': good.certPem, 'tls.key': other.keyPem }, /does not belong/],
    ['no SAN', { 'tls.crt': noSan.certPem, 'tls.key': noSan.keyPem }, /subjectAltName/],
    ['truncated PEM', { 'tls.crt': good.certPem.slice(0, 200), 'tls.key': good.keyPem }, /cannot be parsed|certificate/],
    ['missing file', 'missing', /ENOENT/],
  ];
  let failures = 0;
  for (const [name, files, reason] of cases) {
    if (files === 'missing') await atomicWrite(dir, { 'tls.key': good.keyPem });
    else await atomicWrite(dir, files);
    await h.server.reloadNow();
    failures++;
    assert.equal(await servedFingerprint(h.port), fingerprint(good.certPem), `${name}: the old certificate serves`);
    const r = await readyz(h);
    assert.equal(r.status, 200, `${name}: still ready`);
    assert.match(String((r.body.certificate.lastError as { message: string }).message), reason, name);
    assert.equal(r.body.certificate.failures, failures);
  }
  await traffic.stop();
  assert.deepEqual(traffic.errors, []);
  const metrics = await send({ port: h.port, path: '/metrics' });
  assert.match(metrics.body, new RegExp(`sidecar_injector_reloads_total\\{kind="cert",result="failure"\\} ${failures}`));
  assert.match(metrics.body, new RegExp(`sidecar_injector_certificate_expiry_timestamp_seconds\\{certificate="serving"\\} ${good.notAfter.getTime() / 1000}`));
  assert.match(metrics.body, /^sidecar_injector_last_reload_successful\{kind="cert"\} 0$/m, 'the refused files are still on disk');
  await atomicWrite(dir, { 'tls.crt': other.certPem, 'tls.key': other.keyPem });
  await h.server.reloadNow();
  assert.equal(await servedFingerprint(h.port), fingerprint(other.certPem));
  assert.equal((await readyz(h)).body.certificate.lastError, undefined);
  assert.match(
    (await send({ port: h.port, path: '/metrics' })).body,
    /^sidecar_injector_last_reload_successful\{kind="cert"\} 1$/m,
    'a good version clears it',
  );
});

test('startup with an unusable certificate or config fails with the catalogue code', async (t) => {
  const dir = await tempDir(t);
  const expired = await oddCertificate({ dnsNames: ['localhost'], notBefore: new Date(Date.now() - 2e9), notAfter: new Date(Date.now() - 1e9) });
  await writeFile(join(dir, 'tls.crt'), expired.certPem);
  await writeFile(join(dir, 'tls.key'), expired.keyPem);
  await assert.rejects(
    startHarness({ tls: { kind: 'files', certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') } }),
    (err: { code?: string }) => err.code === 'SI_CERT_INVALID',
  );
  await writeFile(join(dir, 'config'), 'templates: [not, a, map]\n');
  await assert.rejects(startHarness({ config: realConfig(join(dir, 'config')) }), (err: { code?: string }) => err.code === 'SI_CONFIG_INVALID');
});

test('#28 with the real loader: invalid YAML, an invalid schema and a YAML bomb in a mounted ConfigMap keep the last good config', async (t) => {
  const { readFile } = await import('node:fs/promises');
  const { loadConfig } = await import('../profiles/index.js');
  const { injectPod } = await import('../inject/pipeline.js');
  const dir = await tempDir(t);
  const configText = await readFile(new URL('../../defaults/config.yaml', import.meta.url), 'utf8');
  const valuesText = await readFile(new URL('../../defaults/values.yaml', import.meta.url), 'utf8');
  await atomicWrite(dir, { config: configText, values: valuesText });
  const h = await startHarness({
    inject: injectPod,
    config: {
      path: dir,
      load: (p) => loadConfig(p),
      builtin: () => {
        throw new Error('not used');
      },
      describe: (c) => ({ hash: c.hash }),
    },
    reload: { debounceMs: 20, pollMs: 60_000 },
  });
  t.after(() => h.server.shutdown());
  const goodHash = (await readyz(h)).body.config.hash;
  const bomb = [
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
    ...Array.from(
      { length: 8 },
      (_, i) =>
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`,
    ),
  ].join('\n');
  const cases: [string, Record<string, string>][] = [
    ['invalid YAML', { config: 'policy: [enabled\n', values: valuesText }],
    ['invalid schema', { config: 'policy: enabled\ntemplates: 42\n', values: valuesText }],
    ['YAML bomb', { config: bomb, values: valuesText }],
    [
      'template that does not parse',
      { config: configText.replace('{{- $proxy := .Values.global.proxy -}}', '{{- $proxy := .Values.global.proxy'), values: valuesText },
    ],
  ];
  for (const [name, files] of cases) {
    await atomicWrite(dir, files);
    const started = Date.now();
    await h.server.reloadNow();
    assert.ok(Date.now() - started < 2000, `${name}: refused quickly`);
    const r = await readyz(h);
    assert.equal(r.status, 200, `${name}: still ready`);
    assert.equal(r.body.config.hash, goodHash, `${name}: the last good config serves`);
    assert.ok(r.body.config.lastError, `${name}: visible in /readyz`);
    const res = await postReview(h.port, podReview(samplePod()));
    assert.ok(parseReview(res).response.patch, `${name}: pods are still injected`);
  }
  assert.equal((await readyz(h)).body.config.failures, cases.length);
});
