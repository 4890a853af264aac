/**
 * Issue 35: the one Kubernetes client reads credentials as kubectl does, proven against the real
 * apiserver, which says who it took each caller for (SelfSubjectReview):
 * 1. a bound ServiceAccount token (`kubectl create token`) in a kubeconfig `tokenFile`;
 * 2. the same token from an exec credential plugin (client.authentication.k8s.io/v1, with an
 *    expiry), and the admin's client certificate from another exec plugin;
 * 3. a token the apiserver refuses: a 401 KubeApiError, not a crash or a hang.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createNamespace, deleteNamespaces, kubectl } from '../lib/kube.js';
import { KubeApiError } from '../../src/kube/api-error.js';
import { connect } from '../../src/kube/client.js';

const NS = 'si-e2e-credentials';
const dir = mkdtempSync(join(tmpdir(), 'si-e2e-creds-'));
let token = '';
let admin = { server: '', ca: '', cert: '', key: '' };

before(async () => {
  await createNamespace(NS);
  await kubectl(['create', 'serviceaccount', 'reader', '-n', NS]);
  token = (await kubectl(['create', 'token', 'reader', '-n', NS, '--duration', '10m'])).stdout.trim();
  const text = readFileSync(process.env.KUBECONFIG!, 'utf8');
  const field = (key: string) => new RegExp(`${key}: (\\S+)`).exec(text)?.[1] ?? '';
  admin = { server: field('server'), ca: field('certificate-authority-data'), cert: field('client-certificate-data'), key: field('client-key-data') };
  assert.ok(admin.cert !== '' && admin.key !== '', 'the admin kubeconfig has an embedded client certificate');
});

after(async () => {
  await deleteNamespaces(NS);
  rmSync(dir, { recursive: true, force: true });
});

function kubeconfig(name: string, user: string): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    `apiVersion: v1
kind: Config
clusters: [{name: e2e, cluster: {server: "${admin.server}", certificate-authority-data: ${admin.ca}}}]
users: [{name: u, user: ${user}}]
contexts: [{name: e2e, context: {cluster: e2e, user: u, namespace: ${NS}}}]
current-context: e2e
`,
  );
  return path;
}

function plugin(name: string, status: Record<string, string>): string {
  const path = join(dir, name);
  const credential = { apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status };
  writeFileSync(path, `#!/bin/sh\ncat <<'EOF'\n${JSON.stringify(credential)}\nEOF\n`);
  chmodSync(path, 0o755);
  return path;
}

/** Who the apiserver takes this kubeconfig's caller for. */
async function whoami(path: string): Promise<string> {
  const client = connect({ kubeconfig: path });
  try {
    const review = (await client.post('/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    })) as { status?: { userInfo?: { username?: string } } };
    return review.status?.userInfo?.username ?? '';
  } finally {
    client.close();
  }
}

test('33.1: a tokenFile user is the ServiceAccount the token was issued for; the context namespace is the default', async () => {
  writeFileSync(join(dir, 'token'), `${token}\n`);
  const path = kubeconfig('token-file', '{tokenFile: token}');
  assert.equal(await whoami(path), `system:serviceaccount:${NS}:reader`);
  assert.equal(connect({ kubeconfig: path }).defaultNamespace, NS);
});

test('33.2: exec credential plugins: a token with an expiry, and a client certificate', async () => {
  const expires = new Date(Date.now() + 5 * 60_000).toISOString();
  const tokenPlugin = plugin('token-plugin', { token, expirationTimestamp: expires });
  const execToken = kubeconfig('exec-token', `{exec: {apiVersion: client.authentication.k8s.io/v1, command: ${tokenPlugin}, interactiveMode: Never}}`);
  assert.equal(await whoami(execToken), `system:serviceaccount:${NS}:reader`);
  const certPlugin = plugin('cert-plugin', {
    clientCertificateData: Buffer.from(admin.cert, 'base64').toString('utf8'),
    clientKeyData: Buffer.from(admin.key, 'base64').toString('utf8'),
  });
  const execCert = kubeconfig('exec-cert', `{exec: {apiVersion: client.authentication.k8s.io/v1, command: ${certPlugin}, interactiveMode: Never}}`);
  const adminName = await whoami(process.env.KUBECONFIG!);
  assert.notEqual(adminName, '');
  assert.equal(await whoami(execCert), adminName);
});

test('33.3: a refused token is a 401 KubeApiError naming the request', async () => {
  const path = kubeconfig('bad-token', '{token: not-a-real-token}');
  const err = await whoami(path).catch((e: unknown) => e);
  assert.ok(err instanceof KubeApiError, String(err));
  assert.equal(err.status, 401);
  assert.match(err.message, /POST \/apis\/authentication\.k8s\.io\/v1\/selfsubjectreviews: 401/);
});
