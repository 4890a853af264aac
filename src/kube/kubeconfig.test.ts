/**
 * Finding and reading the kubeconfig as kubectl does: $KUBECONFIG's files merged (the first to
 * name a cluster, user or context wins, and the first current-context), paths relative to the
 * file that holds them, --context, and the mistakes named.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, test } from 'node:test';
import { ClusterError } from '../errors.js';
import { kubeconfigFiles, loadKubeconfig } from './kubeconfig.js';

const dir = mkdtempSync(join(tmpdir(), 'si-kubeconfig-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
};
const configError = (re: RegExp) => (e: unknown) => e instanceof ClusterError && e.code === 'SI_CLUSTER_CONFIG' && re.test(e.message);

const a = file(
  'a/config',
  `apiVersion: v1
kind: Config
clusters:
- name: shared
  cluster: {server: "https://a.example:6443", certificate-authority: ca.crt}
users:
- name: u
  user: {tokenFile: token}
contexts:
- name: dev
  context: {cluster: shared, user: u, namespace: shop}
current-context: dev
`,
);
const b = file(
  'b/config',
  `apiVersion: v1
kind: Config
clusters:
- name: shared
  cluster: {server: "https://b.example:6443"}
- name: only-b
  cluster: {server: "https://only-b.example"}
contexts:
- name: dev
  context: {cluster: only-b}
- name: staging
  context: {cluster: only-b}
current-context: staging
`,
);

test('KUBECONFIG: files merged in order, the first definition and the first current-context win; missing files are skipped', () => {
  const files = kubeconfigFiles({}, { KUBECONFIG: [a, join(dir, 'absent'), b].join(delimiter) });
  assert.deepEqual(files, [a, b]);
  const target = loadKubeconfig(files!, {});
  assert.equal(target.context, 'dev');
  assert.equal(target.namespace, 'shop');
  assert.equal(target.server.href, 'https://a.example:6443/');
  assert.equal(target.user?.name, 'u');
  // Relative paths are relative to the file that defines the entry.
  assert.equal(target.cluster.dir, join(dir, 'a'));
  const staging = loadKubeconfig(files!, { context: 'staging' });
  assert.equal(staging.server.href, 'https://only-b.example/');
  assert.equal(staging.user, undefined);
});

test('--kubeconfig wins over KUBECONFIG; ~/.kube/config is the default; nothing found is undefined', () => {
  assert.deepEqual(kubeconfigFiles({ kubeconfig: b }, { KUBECONFIG: a }), [b]);
  const home = join(dir, 'home');
  assert.equal(kubeconfigFiles({}, { HOME: home }), undefined);
  const homeConfig = file('home/.kube/config', 'apiVersion: v1\n');
  assert.deepEqual(kubeconfigFiles({}, { HOME: home }), [homeConfig]);
});

test('mistakes are SI_CLUSTER_CONFIG errors that say what to do', () => {
  assert.throws(() => loadKubeconfig([join(dir, 'nope')], { kubeconfig: join(dir, 'nope') }), configError(/the file does not exist; point --kubeconfig at/));
  assert.throws(
    () => loadKubeconfig([a], { context: 'prod' }),
    configError(/context "prod" is not in the kubeconfig .*; its contexts: dev \(kubectl config get-contexts\)/),
  );
  const http = file(
    'http',
    'clusters: [{name: c, cluster: {server: "http://127.0.0.1:8080"}}]\ncontexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n',
  );
  assert.throws(() => loadKubeconfig([http], {}), configError(/plain-http server .*use its https address/));
  const noServer = file('noserver', 'clusters: [{name: c, cluster: {}}]\ncontexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n');
  assert.throws(() => loadKubeconfig([noServer], {}), configError(/context "x" names no cluster with a server/));
  const noUser = file(
    'nouser',
    'clusters: [{name: c, cluster: {server: "https://x"}}]\ncontexts: [{name: x, context: {cluster: c, user: ghost}}]\ncurrent-context: x\n',
  );
  assert.throws(() => loadKubeconfig([noUser], {}), configError(/names user "ghost", which it does not define/));
  const notList = file('notlist', 'clusters: {name: c}\n');
  assert.throws(() => loadKubeconfig([notList], {}), configError(/clusters is not a list/));
  const noCurrent = file('nocurrent', 'contexts: [{name: x, context: {cluster: c}}]\n');
  assert.throws(() => loadKubeconfig([noCurrent], {}), configError(/has no current-context; choose one with --context/));
});
