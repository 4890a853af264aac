/**
 * Scenario 1 of the control-plane issue: every object `manifests` generates, and every object
 * of the Helm chart rendered by the real `helm template` (after `helm lint`), is accepted by the
 * real apiserver through server-side apply, and stored as generated (CEL matchConditions,
 * selectors and webhook settings included).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from '../cluster/paths.js';
import { apply, cli, deleteNamespaces, getJson, kubectl, run, type Obj } from '../lib/kube.js';
import { assertSubset } from '../lib/subset.js';

const CHART = join(repoRoot, 'deploy/helm/sidecar-injector');
const cleanup: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const c of cleanup.reverse()) await c();
});

const docs = (yaml: string): Obj[] =>
  parseAllDocuments(yaml)
    .map((d) => d.toJS() as Obj)
    .filter((o) => o && o.kind);
const ref = (o: Obj): string[] => [o.kind.toLowerCase(), o.metadata.name, ...(o.metadata.namespace ? ['-n', o.metadata.namespace] : [])];

/**
 * Apply everything; the webhook configuration last and for as short a time as possible: it
 * points at a Service with no running server, and fails closed for opted-in pods.
 */
async function applyAndReadBack(objects: Obj[], mwcName: string): Promise<void> {
  const mwc = objects.filter((o) => o.kind === 'MutatingWebhookConfiguration');
  const rest = objects.filter((o) => o.kind !== 'MutatingWebhookConfiguration');
  assert.equal(mwc.length, 1, 'one MutatingWebhookConfiguration');
  cleanup.push(() => kubectl(['delete', 'mutatingwebhookconfiguration', mwcName, '--ignore-not-found'], { allowFail: true }));
  for (const o of rest.filter((x) => x.kind.startsWith('Cluster')))
    cleanup.push(() => kubectl(['delete', ...ref(o), '--ignore-not-found'], { allowFail: true }));
  await apply(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: rest }));
  try {
    await apply(JSON.stringify(mwc[0]));
    for (const o of [...rest, mwc[0]!]) assertSubset(await getJson(ref(o)), o, `${o.kind}/${o.metadata.name}`);
  } finally {
    await kubectl(['delete', 'mutatingwebhookconfiguration', mwcName, '--ignore-not-found']);
  }
}

test('scenario 1a: every object manifests generates is accepted by server-side apply and stored as generated', async () => {
  const ns = 'e2e-install';
  cleanup.push(() => deleteNamespaces(ns));
  const out = await cli(['manifests', '--name', 'e2e-install', '--namespace', ns]);
  const objects = docs(out.stdout);
  assert.deepEqual(
    [...new Set(objects.map((o) => o.kind))].sort(),
    [
      'ClusterRole',
      'ClusterRoleBinding',
      'ConfigMap',
      'Deployment',
      'MutatingWebhookConfiguration',
      'Namespace',
      'PodDisruptionBudget',
      'Role',
      'RoleBinding',
      'Secret',
      'Service',
      'ServiceAccount',
    ].sort(),
  );
  const mwc = objects.find((o) => o.kind === 'MutatingWebhookConfiguration')!;
  assert.ok(
    mwc.webhooks.every((w: Obj) => (w.matchConditions ?? []).length > 0),
    'the CEL match conditions are part of what the apiserver must accept',
  );
  await applyAndReadBack(objects, 'e2e-install');
  // The Deployment controller acted on it: a ReplicaSet exists for the injector itself.
  const rs = await getJson(['replicasets', '-n', ns]);
  assert.equal(rs.items.length, 1, 'the Deployment was reconciled into a ReplicaSet');
});

test('scenario 1b: the Helm chart passes helm lint, and what helm template renders is accepted and stored as rendered', async () => {
  const ns = 'e2e-helm';
  cleanup.push(() => deleteNamespaces(ns));
  const lint = await run('helm', ['lint', '--strict', CHART], { allowFail: true });
  assert.equal(lint.code, 0, `helm lint --strict: ${lint.stdout}${lint.stderr}`);
  const version = await run('helm', ['version', '--template', '{{.Version}}']);
  assert.match(version.stdout, /^v3\./);
  const rendered = await run('helm', ['template', 'e2e-helm', CHART, '--namespace', ns]);
  const objects = docs(rendered.stdout);
  assert.ok(objects.length >= 8, `helm rendered ${objects.length} objects`);
  if (!objects.some((o) => o.kind === 'Namespace')) await kubectl(['create', 'namespace', ns]);
  for (const o of objects)
    if (o.metadata.namespace === undefined && !['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'MutatingWebhookConfiguration'].includes(o.kind))
      o.metadata.namespace = ns;
  const mwc = objects.find((o) => o.kind === 'MutatingWebhookConfiguration')!;
  await applyAndReadBack(objects, mwc.metadata.name);
});
