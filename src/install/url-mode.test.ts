import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { validateObject } from '../../test/support/k8s-validate.js';
import { generateInstall } from './build-manifests.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- generated objects are walked as loose JSON */
type Obj = Record<string, any>;

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'si-url-mode-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('manifests --webhook-url (the server runs outside the cluster)', () => {
  it('writes only the webhook configuration, calling <url>/inject with the CA of a certificate for the URL host', async () => {
    const certsDir = join(dir, 'ip');
    const result = await generateInstall({ webhookUrl: 'https://127.0.0.1:9443/', certsDir });
    const docs = parseAllDocuments(result.yaml).map((d) => d.toJS() as Obj);
    assert.deepEqual(
      docs.map((d) => d.kind),
      ['MutatingWebhookConfiguration'],
      'nothing else runs in the cluster',
    );
    const mwc = docs[0]!;
    assert.equal(validateObject(mwc as any), 'validated');
    for (const w of mwc.webhooks) {
      assert.deepEqual(Object.keys(w.clientConfig).sort(), ['caBundle', 'url'], 'url, never service');
      assert.equal(w.clientConfig.url, 'https://127.0.0.1:9443/inject');
    }
    const caPem = Buffer.from(mwc.webhooks[0].clientConfig.caBundle, 'base64').toString('utf8');
    assert.equal(caPem, await readFile(join(certsDir, 'ca.crt'), 'utf8'), 'the caBundle is the CA written for serve --tls-dir');
    const leaf = new X509Certificate(await readFile(join(certsDir, 'tls.crt')));
    assert.ok(leaf.checkIP('127.0.0.1'), 'the serving certificate covers the IP the apiserver dials');
    assert.ok(leaf.checkIssued(new X509Certificate(caPem)));
    // Rerunning keeps the CA and the certificate (reused, not rotated under a running cluster).
    const again = await generateInstall({ webhookUrl: 'https://127.0.0.1:9443', certsDir });
    assert.equal(again.yaml, result.yaml);
  });

  it('a DNS host gets a DNS SAN; the base path is kept', async () => {
    const certsDir = join(dir, 'dns');
    const result = await generateInstall({ webhookUrl: 'https://dev-box.example.test:8443/hooks', certsDir });
    const mwc = parseAllDocuments(result.yaml)[0]!.toJS() as Obj;
    assert.equal(mwc.webhooks[0].clientConfig.url, 'https://dev-box.example.test:8443/hooks/inject');
    const leaf = new X509Certificate(await readFile(join(certsDir, 'tls.crt')));
    assert.ok(leaf.checkHost('dev-box.example.test'));
  });

  it('refuses what the apiserver would refuse, naming the flag', async () => {
    for (const url of ['http://127.0.0.1:9443', 'not a url', 'https://u:p@127.0.0.1', 'https://127.0.0.1/?a=b', 'https://127.0.0.1/#x']) {
      await assert.rejects(
        generateInstall({ webhookUrl: url }),
        (err: Error & { code?: string }) => err.code === 'SI_USAGE' && /--webhook-url/.test(err.message),
        url,
      );
    }
    await assert.rejects(generateInstall({ webhookUrl: 'https://127.0.0.1', certMode: 'cert-manager' }), /cert-manager/);
  });
});
