import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { configMapData, splitSingleFile } from './config-data.js';
import { resolveInstallOptions } from './options.js';
import { installCertificates, LEAF_RENEW_BEFORE_DAYS } from './tls.js';

const DAY = 86_400_000;
let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'si-install-tls-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('install certificates in a --certs-dir', () => {
  const options = resolveInstallOptions({ name: 'inj', namespace: 'mesh', certMode: 'generate' });

  it('renews the serving certificate from the same CA shortly before it expires', async () => {
    const certsDir = join(dir, 'renew');
    const t0 = new Date('2030-01-01T00:00:00Z');
    const first = await installCertificates(options, { certsDir, now: t0 });
    assert.equal(first.source, 'generated');
    const notAfter = new Date(new X509Certificate(first.certPem!).validTo).getTime();
    // Comfortably valid: reused as is.
    const early = await installCertificates(options, { certsDir, now: new Date(t0.getTime() + 30 * DAY) });
    assert.equal(early.source, 'reused');
    assert.equal(early.certPem, first.certPem);
    // Inside the renewal window: a new leaf, the same CA and caBundle.
    const late = await installCertificates(options, { certsDir, now: new Date(notAfter - (LEAF_RENEW_BEFORE_DAYS - 5) * DAY) });
    assert.equal(late.source, 'renewed');
    assert.notEqual(late.certPem, first.certPem);
    assert.equal(late.caBundle, first.caBundle);
    assert.equal(await readFile(join(certsDir, 'tls.crt'), 'utf8'), late.certPem, 'the directory holds the new leaf');
    const leaf = new X509Certificate(late.certPem!);
    assert.ok(leaf.verify(new X509Certificate(first.caPem!).publicKey));
  });

  it('refuses a directory holding half a CA, saying what to do', async () => {
    const certsDir = join(dir, 'half');
    await installCertificates(options, { certsDir });
    await unlink(join(certsDir, 'ca.key'));
    await assert.rejects(installCertificates(options, { certsDir }), /--certs-dir .*ca\.key does not.*empty directory/s);
  });

  it('a tampered certificate is replaced, not shipped', async () => {
    const certsDir = join(dir, 'tampered');
    const first = await installCertificates(options, { certsDir });
    await writeFile(join(certsDir, 'tls.key'), (await installCertificates(options, {})).keyPem!);
    const again = await installCertificates(options, { certsDir });
    assert.equal(again.source, 'renewed');
    assert.match(again.notes.join(' '), /different pairs/);
    assert.equal(again.caBundle, first.caBundle);
  });
});

describe('ConfigMap data from --config', () => {
  it('takes the data keys of a ConfigMap manifest verbatim', async () => {
    const file = join(dir, 'cm.yaml');
    const config = 'policy: enabled\ntemplates:\n  sidecar: |\n    spec: {}\n';
    await writeFile(
      file,
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: istio-sidecar-injector\ndata:\n  config: |\n${config.replace(/^/gm, '    ').trimEnd()}\n  values: '{"global": {}}'\n`,
    );
    const data = await configMapData(file);
    assert.equal(data.config, config);
    assert.equal(data.values, '{"global": {}}');
    assert.equal(data.loaded.policy, 'enabled');
  });
  it('a single file without values gets an empty values document', () => {
    assert.deepEqual(splitSingleFile('policy: disabled\n', 'x.yaml'), { config: 'policy: disabled\n', values: '{}\n' });
  });
});
