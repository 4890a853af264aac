import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile, unlink, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { runCli } from './command-tree.js';
import { memoryIO } from '../../test/support/memory-io.js';
import { generateCA } from '../certs/index.js';
import { tlsProbe } from '../../test/support/tls-probe.js';

const DAY = 86_400_000;

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'si-certs-cli-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const base = (dir: string) => ['certs', '--service', 'injector', '--namespace', 'mesh', '--out', dir];
const read = (dir: string, name: string) => readFile(join(dir, name), 'utf8');

test('first run writes a CA and a serving certificate the apiserver would accept, keys 0600', async () => {
  await withDir(async (dir) => {
    const out = join(dir, 'nested', 'certs');
    const io = memoryIO();
    assert.equal(await runCli(base(out), io), 0, io.err);
    assert.equal(io.out, '', 'nothing on stdout without --secret-manifest');
    assert.match(io.err, /Created a new CA/);
    const ca = new X509Certificate(await read(out, 'ca.crt'));
    const leaf = new X509Certificate(await read(out, 'tls.crt'));
    assert.ok(leaf.checkIssued(ca) && leaf.verify(ca.publicKey));
    for (const name of ['injector', 'injector.mesh', 'injector.mesh.svc', 'injector.mesh.svc.cluster.local']) {
      assert.equal(leaf.checkHost(name, { subject: 'never' }), name);
    }
    assert.equal((await stat(join(out, 'tls.key'))).mode & 0o777, 0o600);
    assert.equal((await stat(join(out, 'ca.key'))).mode & 0o777, 0o600);
    // Default lifetimes: CA ~10 years, leaf ~1 year.
    const days = (c: X509Certificate) => Math.round((new Date(c.validTo).getTime() - Date.now()) / DAY);
    assert.equal(days(ca), 3650);
    assert.equal(days(leaf), 365);
    const probe = await tlsProbe(
      { certPem: await read(out, 'tls.crt'), keyPem: await read(out, 'tls.key') },
      { caPem: await read(out, 'ca.crt'), servername: 'injector.mesh.svc' },
    );
    assert.deepEqual(probe, { ok: true });
    assert.deepEqual((await readdir(out)).sort(), ['ca.crt', 'ca.key', 'tls.crt', 'tls.key'], 'no temporary files left');
  });
});

test('re-running keeps the CA byte for byte and renews only the leaf', async () => {
  await withDir(async (dir) => {
    assert.equal(await runCli(base(dir), memoryIO()), 0);
    const [caCrt, caKey, tlsCrt] = await Promise.all([read(dir, 'ca.crt'), read(dir, 'ca.key'), read(dir, 'tls.crt')]);
    const io = memoryIO();
    assert.equal(await runCli([...base(dir), '--validity-days', '30'], io), 0, io.err);
    assert.match(io.err, /Kept the existing CA .* renewed only the serving certificate/);
    assert.equal(await read(dir, 'ca.crt'), caCrt);
    assert.equal(await read(dir, 'ca.key'), caKey);
    const renewed = await read(dir, 'tls.crt');
    assert.notEqual(renewed, tlsCrt);
    const leaf = new X509Certificate(renewed);
    assert.ok(leaf.checkIssued(new X509Certificate(caCrt)));
    assert.equal(Math.round((new Date(leaf.validTo).getTime() - Date.now()) / DAY), 30);
  });
});

test('--force replaces the CA and says the caBundle must follow', async () => {
  await withDir(async (dir) => {
    assert.equal(await runCli(base(dir), memoryIO()), 0);
    const before = await read(dir, 'ca.crt');
    const io = memoryIO();
    assert.equal(await runCli([...base(dir), '--force'], io), 0);
    assert.notEqual(await read(dir, 'ca.crt'), before);
    assert.match(io.err, /caBundle must trust/);
  });
});

test('a half-present CA is an error that names the missing file and touches nothing', async () => {
  await withDir(async (dir) => {
    assert.equal(await runCli(base(dir), memoryIO()), 0);
    const tlsBefore = await read(dir, 'tls.crt');
    await unlink(join(dir, 'ca.key'));
    const io = memoryIO();
    assert.equal(await runCli(base(dir), io), 7);
    assert.match(io.err, /Error \[SI_CERT_INVALID\]: .*ca\.crt exists but .*ca\.key does not.*--force/);
    assert.equal(await read(dir, 'tls.crt'), tlsBefore);
  });
});

test('an expired CA is refused with advice to pass --force, which then works', async () => {
  await withDir(async (dir) => {
    const old = await generateCA({ validityDays: 1, now: new Date(Date.now() - 5 * DAY) });
    await writeFile(join(dir, 'ca.crt'), old.certPem);
    await writeFile(join(dir, 'ca.key'), old.keyPem);
    const io = memoryIO();
    assert.equal(await runCli(base(dir), io), 7);
    assert.match(io.err, /expired on .*pass --force to create a new CA/);
    assert.deepEqual((await readdir(dir)).sort(), ['ca.crt', 'ca.key']);
    assert.equal(await runCli([...base(dir), '--force'], memoryIO()), 0);
    assert.notEqual(await read(dir, 'ca.crt'), old.certPem);
  });
});

test('a ca.key that does not match ca.crt is refused', async () => {
  await withDir(async (dir) => {
    const a = await generateCA();
    const b = await generateCA();
    await writeFile(join(dir, 'ca.crt'), a.certPem);
    await writeFile(join(dir, 'ca.key'), b.keyPem);
    const io = memoryIO();
    assert.equal(await runCli(base(dir), io), 7);
    assert.match(io.err, /ca\.key is not the private key of .*ca\.crt/);
  });
});

test('an --out that cannot be a directory is a write error, exit 1', async () => {
  await withDir(async (dir) => {
    await writeFile(join(dir, 'file'), 'x');
    const io = memoryIO();
    assert.equal(await runCli(base(join(dir, 'file', 'sub')), io), 1);
    assert.match(io.err, /Error \[SI_FILE_WRITE\]: cannot create the directory .*(ENOTDIR|EEXIST)/);
  });
});

test('--secret-manifest prints a kubernetes.io/tls Secret whose data equals the files', async () => {
  await withDir(async (dir) => {
    const io = memoryIO();
    assert.equal(await runCli([...base(dir), '--secret-manifest'], io), 0, io.err);
    const secret = parse(io.out) as { kind: string; type: string; metadata: { name: string; namespace: string }; data: Record<string, string> };
    assert.equal(secret.kind, 'Secret');
    assert.equal(secret.type, 'kubernetes.io/tls');
    assert.deepEqual(secret.metadata.name, 'injector-tls');
    assert.deepEqual(secret.metadata.namespace, 'mesh');
    assert.deepEqual(Object.keys(secret.data).sort(), ['ca.crt', 'tls.crt', 'tls.key'], 'the CA key never goes into the cluster');
    for (const key of ['ca.crt', 'tls.crt', 'tls.key']) {
      assert.equal(Buffer.from(secret.data[key], 'base64').toString(), await read(dir, key));
    }
    const file = join(dir, 'secret.yaml');
    assert.equal(await runCli([...base(dir), '--secret-manifest', file, '--secret-name', 'webhook-certs'], memoryIO()), 0);
    assert.match(await readFile(file, 'utf8'), /name: webhook-certs/);
  });
});

test('bad flags are usage errors (exit 2) and write nothing', async () => {
  await withDir(async (dir) => {
    const cases: string[][] = [
      [...base(dir), '--validity-days', 'ten'],
      [...base(dir), '--validity-days', '0'],
      [...base(dir), '--ca-validity-days', '99999999'],
      ['certs', '--service', 'Bad_Name', '--namespace', 'mesh', '--out', dir],
      ['certs', '--service', 'injector', '--namespace', 'Mesh!', '--out', dir],
      ['certs', '--service', 'injector', '--namespace', 'mesh'],
    ];
    for (const argv of cases) {
      const io = memoryIO();
      assert.equal(await runCli(argv, io), 2, argv.join(' '));
      assert.notEqual(io.err, '');
    }
    assert.deepEqual(await readdir(dir), []);
  });
});

test('a CA that ends before the requested leaf lifetime clamps the leaf and warns', async () => {
  await withDir(async (dir) => {
    const short = await generateCA({ validityDays: 20 });
    await writeFile(join(dir, 'ca.crt'), short.certPem);
    await writeFile(join(dir, 'ca.key'), short.keyPem);
    const io = memoryIO();
    assert.equal(await runCli(base(dir), io), 0);
    assert.match(io.err, /Warning: the CA expires on .*--force/);
    assert.equal(new X509Certificate(await read(dir, 'tls.crt')).validTo, new X509Certificate(short.certPem).validTo);
  });
});
