/**
 * A kubeconfig's credentials applied as kubectl applies them, against a loopback HTTPS server
 * that records what each request carried: a client certificate (files relative to the
 * kubeconfig), a token file re-read per request, an exec plugin (run once, its answer kept
 * until it expires or the server refuses it, its failures named), basic auth, impersonation, an
 * oidc id-token, insecure-skip-tls-verify, and what is refused (other auth providers, proxy-url).
 * The real apiserver is the e2e suite's (scenario 30, with a client certificate and an exec plugin).
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer, type Server } from 'node:https';
import { type AddressInfo, connect as netConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { after, before, test } from 'node:test';
import { devCertificate } from '../certs/create-certs.js';
import { ClusterError } from '../errors.js';
import { KubeClient } from './client.js';
import { kubeconfigEndpoint } from './endpoint.js';
import { loadKubeconfig } from './kubeconfig.js';

const dir = mkdtempSync(join(tmpdir(), 'si-endpoint-'));
interface Seen {
  authorization?: string;
  impersonateUser?: string;
  impersonateGroup?: string;
  peer?: string;
}
const seen: Seen[] = [];
/** Tokens the server refuses with 401. */
const refused = new Set<string>();
let server: Server;
let port = 0;
let caPem = '';
let clientCertPem = '';
let clientKeyPem = '';

before(async () => {
  const serving = await devCertificate();
  const client = await devCertificate({ hosts: ['client.example'] });
  caPem = serving.caPem;
  clientCertPem = client.certPem;
  clientKeyPem = client.keyPem;
  server = createServer({ cert: serving.certPem, key: serving.keyPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    seen.push({
      authorization: req.headers.authorization,
      impersonateUser: req.headers['impersonate-user'] as string | undefined,
      impersonateGroup: req.headers['impersonate-group'] as string | undefined,
      peer: peer?.subjectaltname,
    });
    const token = req.headers.authorization?.replace(/^Bearer /, '');
    if (token !== undefined && refused.has(token)) {
      res.writeHead(401, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ kind: 'Status', reason: 'Unauthorized', message: 'Unauthorized' }));
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"kind":"Namespace"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  writeFileSync(join(dir, 'ca.crt'), caPem);
  writeFileSync(join(dir, 'client.crt'), clientCertPem);
  writeFileSync(join(dir, 'client.key'), clientKeyPem);
});

after(() => {
  server.closeAllConnections();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A kubeconfig whose one context uses `user` (YAML flow mapping) and `cluster` extras. */
function client(user: string, cluster = 'certificate-authority: ca.crt'): KubeClient {
  const path = join(dir, `config-${seen.length}-${Math.random().toString(36).slice(2)}`);
  writeFileSync(
    path,
    `clusters: [{name: c, cluster: {server: "https://127.0.0.1:${port}", ${cluster}}}]
users: [{name: u, user: ${user}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`,
  );
  return new KubeClient(kubeconfigEndpoint(loadKubeconfig([path], {})), { timeoutMs: 10_000 });
}
const last = (): Seen => seen.at(-1)!;
const configError = (re: RegExp) => (e: unknown) => e instanceof ClusterError && e.code === 'SI_CLUSTER_CONFIG' && re.test(e.message);

test('a client certificate and key from files relative to the kubeconfig, the CA too', async () => {
  const c = client('{client-certificate: client.crt, client-key: client.key}');
  await c.get('/api/v1/namespaces/default');
  assert.match(last().peer ?? '', /DNS:client\.example/);
  assert.equal(last().authorization, undefined);
  c.close();
});

test('a token file is read on every request, so a rotated token is used at once', async () => {
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, 'first\n');
  const c = client('{tokenFile: token}');
  await c.get('/api/v1/namespaces/default');
  assert.equal(last().authorization, 'Bearer first');
  writeFileSync(tokenFile, 'second');
  await c.get('/api/v1/namespaces/default');
  assert.equal(last().authorization, 'Bearer second');
  c.close();
});

interface Plugin {
  script: string;
  runs(): number;
  info(): { info: { kind: string; spec: { interactive: boolean; cluster: { server: string } } }; greeting: string };
}

/** An exec plugin that answers token `tok-N` (N counts its runs), or `status` as given, and records what it was given. */
function plugin(expiresInS: number | undefined, status?: Record<string, string>): Plugin {
  const base = join(dir, `plugin-${Math.random().toString(36).slice(2)}`);
  const counter = `${base}.runs`;
  const script = `${base}.mjs`;
  writeFileSync(counter, '0');
  const expiry = expiresInS === undefined ? '' : `status.expirationTimestamp = new Date(Date.now() + ${expiresInS * 1000}).toISOString();`;
  writeFileSync(
    script,
    `#!${process.execPath}
import { readFileSync, writeFileSync } from 'node:fs';
const n = Number(readFileSync(${JSON.stringify(counter)}, 'utf8')) + 1;
writeFileSync(${JSON.stringify(counter)}, String(n));
writeFileSync(${JSON.stringify(`${base}.info`)}, JSON.stringify({ info: JSON.parse(process.env.KUBERNETES_EXEC_INFO), greeting: process.env.GREETING }));
const status = ${status === undefined ? "{ token: 'tok-' + n }" : JSON.stringify(status)};
${expiry}
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status }));
`,
  );
  chmodSync(script, 0o755);
  return { script, runs: () => Number(readFileSync(counter, 'utf8')), info: () => JSON.parse(readFileSync(`${base}.info`, 'utf8')) };
}
const execUser = (script: string, more = '') =>
  `{exec: {apiVersion: client.authentication.k8s.io/v1, command: ${JSON.stringify(script)}, env: [{name: GREETING, value: hi}], provideClusterInfo: true, interactiveMode: Never${more}}}`;

test('an exec plugin runs once; its token is kept until the apiserver refuses it, then fetched again', async () => {
  const p = plugin(3600);
  const c = client(execUser(p.script));
  await Promise.all([c.get('/api/v1/namespaces/a'), c.get('/api/v1/namespaces/b')]);
  await c.get('/api/v1/namespaces/c');
  assert.equal(p.runs(), 1, 'concurrent and later requests share one run');
  assert.equal(last().authorization, 'Bearer tok-1');
  const info = p.info();
  assert.equal(info.info.kind, 'ExecCredential');
  assert.equal(info.info.spec.interactive, false);
  assert.equal(info.info.spec.cluster.server, `https://127.0.0.1:${port}/`);
  assert.equal(info.greeting, 'hi');
  refused.add('tok-1');
  await assert.rejects(c.get('/api/v1/namespaces/d'), (e: unknown) => e instanceof ClusterError && e.details?.status === 401);
  await c.get('/api/v1/namespaces/e');
  assert.equal(last().authorization, 'Bearer tok-2');
  assert.equal(p.runs(), 2);
  refused.clear();
  c.close();
});

test('an expired exec credential is fetched again before the request', async () => {
  const p = plugin(-1);
  const c = client(execUser(p.script));
  await c.get('/api/v1/namespaces/a');
  await c.get('/api/v1/namespaces/b');
  assert.equal(p.runs(), 2);
  assert.equal(last().authorization, 'Bearer tok-2');
  c.close();
});

test('an exec plugin may answer a client certificate instead of a token', async () => {
  const p = plugin(undefined, { clientCertificateData: clientCertPem, clientKeyData: clientKeyPem });
  const c = client(execUser(p.script));
  await c.get('/api/v1/namespaces/a');
  assert.match(last().peer ?? '', /DNS:client\.example/);
  c.close();
});

test('exec plugin failures name the plugin and what to do', async () => {
  const missing = client(execUser(join(dir, 'no-such-plugin'), ', installHint: "install it with: apt-get install no-such-plugin"'));
  await assert.rejects(missing.get('/api/v1/namespaces/a'), configError(/no-such-plugin: not found; install it with: apt-get install no-such-plugin/));
  const failing = join(dir, 'failing.sh');
  writeFileSync(failing, '#!/bin/sh\necho "please log in" >&2\nexit 3\n');
  chmodSync(failing, 0o755);
  await assert.rejects(client(execUser(failing)).get('/api/v1/namespaces/a'), configError(/failing\.sh: exited with status 3/));
  const wrong = join(dir, 'wrong.sh');
  writeFileSync(wrong, '#!/bin/sh\necho \'{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"x"}}\'\n');
  chmodSync(wrong, 0o755);
  await assert.rejects(
    client(execUser(wrong)).get('/api/v1/namespaces/a'),
    configError(/answered apiVersion client\.authentication\.k8s\.io\/v1beta1, not the client\.authentication\.k8s\.io\/v1/),
  );
  assert.throws(() => client('{exec: {apiVersion: v9, command: x}}'), configError(/exec: apiVersion "v9" is not one of/));
});

test('basic auth, impersonation and an oidc id-token go in the headers; other auth providers and proxy-url are refused', async () => {
  const basic = client('{username: ann, password: s3cret, as: bob, as-groups: [ops, dev]}');
  await basic.get('/api/v1/namespaces/a');
  assert.equal(last().authorization, `Basic ${Buffer.from('ann:s3cret').toString('base64')}`);
  assert.equal(last().impersonateUser, 'bob');
  assert.equal(last().impersonateGroup, 'ops, dev');
  basic.close();
  const oidc = client('{auth-provider: {name: oidc, config: {id-token: eyJ.oidc}}}');
  await oidc.get('/api/v1/namespaces/a');
  assert.equal(last().authorization, 'Bearer eyJ.oidc');
  oidc.close();
  assert.throws(() => client('{auth-provider: {name: gcp}}'), configError(/auth-provider "gcp", which sidecar-injector does not run .*exec plugin/));
  assert.throws(
    () => client('{token: t}', 'proxy-url: "socks5://proxy:1080"'),
    configError(/socks5 proxy-url, which sidecar-injector does not support: use an http or https proxy/),
  );
});

test("proxy-url: requests go through the proxy's CONNECT tunnel, with its credentials; TLS stays end to end", async () => {
  const tunnels: { target: string; auth?: string }[] = [];
  const proxy = createHttpServer();
  proxy.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    tunnels.push({ target: req.url ?? '', auth: req.headers['proxy-authorization'] });
    const [host, p] = (req.url ?? '').split(':');
    const upstream = netConnect(Number(p), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  try {
    const proxyPort = (proxy.address() as AddressInfo).port;
    const c = client('{token: via-proxy}', `certificate-authority: ca.crt, proxy-url: "http://ann:pw@127.0.0.1:${proxyPort}"`);
    await c.get('/api/v1/namespaces/a');
    assert.equal(last().authorization, 'Bearer via-proxy');
    assert.deepEqual(tunnels, [{ target: `127.0.0.1:${port}`, auth: `Basic ${Buffer.from('ann:pw').toString('base64')}` }]);
    c.close();
    const closed = client('{token: t}', 'certificate-authority: ca.crt, proxy-url: "http://127.0.0.1:1"');
    await assert.rejects(
      closed.get('/api/v1/namespaces/a'),
      (e: unknown) => e instanceof ClusterError && /cannot reach the proxy 127\.0\.0\.1:1: ECONNREFUSED/.test(e.message),
    );
  } finally {
    proxy.closeAllConnections();
    proxy.close();
  }
});

test('the server is verified against the kubeconfig CA; insecure-skip-tls-verify turns that off', async () => {
  const untrusted = client('{token: t}', 'certificate-authority-data: ""');
  await assert.rejects(
    untrusted.get('/api/v1/namespaces/a'),
    (e: unknown) => e instanceof ClusterError && /cannot reach .*(SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER)/.test(e.message),
  );
  const insecure = client('{token: t}', 'insecure-skip-tls-verify: true');
  await insecure.get('/api/v1/namespaces/a');
  assert.equal(last().authorization, 'Bearer t');
  insecure.close();
});
