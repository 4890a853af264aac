/**
 * Issue 17: webhookless injection. `sidecar-injector policy` compiles a config into a
 * MutatingAdmissionPolicy + bindings; the real apiserver (1.36, v1 API) injects with no webhook
 * installed. Checked here: workloads in an opted-in namespace carry the sidecar, opted-out and
 * unlabelled ones do not; the pod the policy produces equals the pod `inject` produces (as JSON,
 * both passed through the same apiserver admission); re-creating an injected pod changes
 * nothing; and the policy decides as the core's `decide` on Istio's decision table.
 * Every policy and binding made here carries the label i17-e2e and is deleted afterwards.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { repoRoot } from '../cluster/paths.js';
import { cli, createNamespace, deleteNamespaces, kubectl, pods, waitFor, type Obj } from '../lib/kube.js';
import { startWebhook } from '../lib/webhook.js';

const LABEL = 'i17-e2e';
const tmp = mkdtempSync(join(tmpdir(), 'i17-policy-'));
const namespaces: string[] = [];

after(async () => {
  await kubectl(['delete', 'mutatingadmissionpolicybinding,mutatingadmissionpolicy', '-l', LABEL, '--ignore-not-found'], { allowFail: true });
  await deleteNamespaces(...namespaces);
  rmSync(tmp, { recursive: true, force: true });
});

async function namespace(name: string, labels: Record<string, string>): Promise<string> {
  namespaces.push(name);
  await createNamespace(name, labels);
  return name;
}

/** Compile with the shipped CLI, label the objects, optionally narrow the bindings to one namespace, apply. */
async function applyPolicy(configPath: string, name: string, onlyNamespace?: string): Promise<Obj[]> {
  const yaml = (await cli(['policy', '-c', configPath, '--name', name])).stdout;
  const objects = parseAllDocuments(yaml).map((d) => d.toJSON() as Obj);
  for (const o of objects) {
    o.metadata.labels = { [LABEL]: 'true' };
    if (onlyNamespace !== undefined && o.kind === 'MutatingAdmissionPolicyBinding') {
      o.spec.matchResources.namespaceSelector.matchExpressions.push({ key: 'kubernetes.io/metadata.name', operator: 'In', values: [onlyNamespace] });
    }
  }
  await kubectl(['apply', '-f', '-'], { input: objects.map((o) => JSON.stringify(o)).join('\n') });
  return objects;
}

async function deletePolicy(name: string): Promise<void> {
  await kubectl(['delete', 'mutatingadmissionpolicybinding', '-l', LABEL, '--ignore-not-found'], { allowFail: true });
  await kubectl(['delete', 'mutatingadmissionpolicy', name, '--ignore-not-found'], { allowFail: true });
}

/** The pod as the apiserver would store it (server-side dry run: all admission, nothing persisted). */
async function admit(ns: string, pod: Obj): Promise<Obj> {
  const r = await kubectl(['-n', ns, 'create', '-f', '-', '--dry-run=server', '-o', 'json'], { input: JSON.stringify(pod) });
  return JSON.parse(r.stdout) as Obj;
}

const hasContainer = (pod: Obj, name: string): boolean =>
  [...(pod.spec.containers ?? []), ...(pod.spec.initContainers ?? [])].some((c: Obj) => c.name === name);

/** Wait until the apiserver has the policy loaded (it watches policies and bindings asynchronously). */
async function waitActive(ns: string, probe: Obj, sidecar: string): Promise<void> {
  try {
    // Usually a second or two; 60 s because CI once saw a policy not act within 30 s on a loaded machine.
    await waitFor(`the policy to inject in ${ns}`, async () => hasContainer(await admit(ns, probe), sidecar), 60_000, 300);
  } catch (err) {
    // What the apiserver holds, so a failure says whether the objects or their evaluation are at fault.
    const held = await kubectl(['get', 'mutatingadmissionpolicy,mutatingadmissionpolicybinding', '-l', LABEL, '-o', 'json'], { allowFail: true });
    const nsObj = await kubectl(['get', 'namespace', ns, '-o', 'jsonpath={.metadata.labels}'], { allowFail: true });
    throw new Error(
      `${(err as Error).message}\nnamespace ${ns} labels: ${nsObj.stdout || nsObj.stderr}\npolicies and bindings held:\n${held.stdout || held.stderr}`,
    );
  }
}

/** Fields the apiserver generates per request; everything else must be equal. */
function comparable(pod: Obj): Obj {
  const p = JSON.parse(JSON.stringify(pod).replace(/kube-api-access-[a-z0-9]{5}/g, 'kube-api-access-*')) as Obj;
  for (const k of ['uid', 'creationTimestamp', 'resourceVersion', 'managedFields', 'namespace', 'generation']) delete p.metadata[k];
  delete p.status;
  return p;
}

/** What `inject` (the CLI, the core) makes of the pod as admitted without the policy, admitted again the same way. */
async function viaInject(plainNs: string, targetNs: string, pod: Obj, configPath: string): Promise<Obj> {
  const admitted = await admit(plainNs, pod);
  for (const k of ['uid', 'creationTimestamp', 'resourceVersion', 'managedFields']) delete admitted.metadata[k];
  delete admitted.status;
  // Admission runs before the apiserver generates a name: a webhook sees no name either.
  if (pod.metadata.generateName) delete admitted.metadata.name;
  admitted.metadata.namespace = targetNs;
  const injected = JSON.parse((await cli(['inject', '-f', '-', '-c', configPath, '-n', targetNs], { input: JSON.stringify(admitted) })).stdout) as Obj;
  injected.metadata.namespace = plainNs;
  return admit(plainNs, injected);
}

const example = (p: string) => join(repoRoot, 'examples', p);

// A config with policy enabled (every pod of an opted-in namespace), a sidecar container, a
// native sidecar, a volume and a pull secret: every list the policy writes.
const WORKLOAD_CONFIG = `
policy: enabled
injectionKeys: {inject: i17.example.com/inject, status: i17.example.com/status, templates: i17.example.com/templates, namespaceLabel: i17-injection, revisionLabel: i17.example.com/rev}
defaultTemplates: [agent]
templates:
  agent: |
    spec:
      initContainers:
      - name: i17-native
        image: {{ .Values.image }}
        restartPolicy: Always
      containers:
      - name: i17-agent
        image: {{ .Values.image }}
        env:
        - {name: POD, value: {{ .ObjectMeta.Name | quote }}}
        - {name: NS, value: {{ .ObjectMeta.Namespace | quote }}}
        - {name: SA, value: {{ .Spec.ServiceAccountName | quote }}}
        - {name: APP, value: {{ index .ObjectMeta.Labels "app" | quote }}}
        - {name: MODE, value: {{ annotation .ObjectMeta "i17.example.com/mode" .Values.mode | quote }}}
        volumeMounts: [{name: i17-data, mountPath: /data}]
        ports: [{containerPort: 9901, name: i17-admin}]
        resources: {requests: {cpu: 5m, memory: 8Mi}}
      volumes:
      - {name: i17-data, emptyDir: {}}
      imagePullSecrets:
      - {name: i17-registry}
values: {image: "registry.example/agent:1", mode: default}
`;

const app = (name: string, extra: Obj = {}, meta: Obj = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: name }, ...meta },
  spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }], ...extra },
});

test('17: policy, no webhook: Deployment, Job and bare Pod in an opted-in namespace carry the sidecar; opted-out and unlabelled do not', async () => {
  const config = join(tmp, 'workload.yaml');
  writeFileSync(config, WORKLOAD_CONFIG);
  const hooks = JSON.parse((await kubectl(['get', 'mutatingwebhookconfigurations', '-o', 'json'])).stdout) as Obj;
  assert.ok(!hooks.items.some((h: Obj) => JSON.stringify(h).includes('i17')), 'no webhook of ours is installed');
  const on = await namespace('i17-policy-on', { 'i17-injection': 'enabled' });
  const off = await namespace('i17-policy-off', {});
  await applyPolicy(config, 'i17-workloads');
  try {
    await waitActive(on, app('probe'), 'i17-agent');
    const deploy = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: app('web').spec } },
    };
    const job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'batch' },
      spec: { template: { metadata: { labels: { app: 'batch' } }, spec: { ...app('batch').spec, restartPolicy: 'Never' } } },
    };
    for (const ns of [on, off]) {
      await kubectl(['-n', ns, 'apply', '-f', '-'], {
        input: [deploy, job, app('bare'), app('optout', {}, { labels: { app: 'optout', 'i17.example.com/inject': 'false' } })]
          .map((o) => JSON.stringify(o))
          .join('\n'),
      });
    }
    for (const ns of [on, off]) {
      const got = await waitFor(`pods in ${ns}`, async () => {
        const list = await pods(ns);
        return list.length >= 5 ? list : undefined;
      });
      for (const p of got) {
        const expected = ns === on && p.metadata.labels.app !== 'optout';
        assert.equal(hasContainer(p, 'i17-agent'), expected, `${ns}/${p.metadata.name} sidecar`);
        assert.equal(hasContainer(p, 'i17-native'), expected, `${ns}/${p.metadata.name} native sidecar`);
        if (expected) {
          const names = p.spec.initContainers.map((c: Obj) => c.name);
          assert.equal(names[0], 'i17-native');
          assert.equal(p.spec.initContainers[0].restartPolicy, 'Always');
          assert.ok(p.spec.imagePullSecrets.some((s: Obj) => s.name === 'i17-registry'));
          const env = Object.fromEntries(p.spec.containers.find((c: Obj) => c.name === 'i17-agent').env.map((e: Obj) => [e.name, e.value]));
          assert.equal(env.NS, on);
          assert.equal(env.APP, p.metadata.labels.app);
          assert.equal(env.MODE, 'default');
          assert.equal(JSON.parse(p.metadata.annotations['i17.example.com/status']).containers[0], 'i17-agent');
        }
      }
    }
  } finally {
    await deletePolicy('i17-workloads');
  }
});

/** Pods of different shapes: with and without the lists the policy adds to, annotations, labels. */
function contractPods(inject: string, optIn = 'true'): Obj[] {
  const on = { [inject]: optIn };
  return [
    app('plain', {}, { labels: { app: 'plain', ...on } }),
    app('bare', { automountServiceAccountToken: false }, { labels: on }),
    app(
      'full',
      {
        initContainers: [{ name: 'setup', image: 'registry.example/setup:1' }],
        imagePullSecrets: [{ name: 'own-registry' }],
        volumes: [{ name: 'own', emptyDir: {} }],
        serviceAccountName: 'default',
      },
      {
        labels: { app: 'yes', tier: 'a', ...on },
        annotations: { note: 'a: "b"\nc', 'i17.example.com/mode': 'x y', 'sidecar-injector-webhook.morven.me/nginx-config': 'my-conf' },
      },
    ),
    { ...app('gen'), metadata: { generateName: 'gen-', labels: { app: '1e3', ...on } } },
  ];
}

test('17: the pod the policy produces equals the pod inject produces (JSON), for each example config; re-creating an injected pod changes nothing', async () => {
  const workload = join(tmp, 'workload.yaml');
  writeFileSync(workload, WORKLOAD_CONFIG);
  const configs = [
    { name: 'i17-nginx', path: example('policy-nginx-sidecar/config.yaml'), sidecar: 'sidecar-nginx' },
    // The tutorial's own config: its opt-in values in any case (injectionValues).
    { name: 'i17-tutorial', path: example('nginx-sidecar/config.yaml'), sidecar: 'sidecar-nginx', optIn: 'YES' },
    { name: 'i17-logs', path: example('policy-log-shipper/config.yaml'), sidecar: 'log-shipper' },
    { name: 'i17-agent', path: workload, sidecar: 'i17-agent' },
  ];
  for (const c of configs) {
    const cfg = parse(readFileSync(c.path, 'utf8')) as Obj;
    const keys = cfg.injectionKeys as Record<string, string>;
    const ns = await namespace(`${c.name}-on`, { [keys.namespaceLabel]: 'enabled' });
    const plain = await namespace(`${c.name}-plain`, { [keys.namespaceLabel]: 'disabled' });
    await applyPolicy(c.path, c.name);
    try {
      const pods = contractPods(keys.inject, c.optIn);
      await waitActive(ns, pods[0], c.sidecar);
      for (const pod of pods) {
        const what = `${c.name}: pod ${pod.metadata.name ?? pod.metadata.generateName}`;
        const byPolicy = await admit(ns, pod);
        assert.ok(hasContainer(byPolicy, c.sidecar), `${what}: injected by the policy`);
        const byInject = await viaInject(plain, ns, pod, c.path);
        if (pod.metadata.generateName) byInject.metadata.name = byPolicy.metadata.name;
        assert.deepEqual(comparable(byPolicy), comparable(byInject), `${what}: policy and inject disagree`);
      }
      // Re-creating a stored injected pod (as a controller or a backup restore would) leaves it as it is.
      const stored = JSON.parse((await kubectl(['-n', ns, 'create', '-f', '-', '-o', 'json'], { input: JSON.stringify(pods[2]) })).stdout) as Obj;
      // With a kubelet the pod is gone only once it has stopped: wait, or the name is still taken.
      await kubectl(['-n', ns, 'delete', 'pod', stored.metadata.name, '--wait=true', '--timeout=90s'], { timeoutMs: 100_000 });
      const again = await admit(ns, { ...stored, metadata: { ...stored.metadata, uid: undefined, resourceVersion: undefined, creationTimestamp: undefined } });
      assert.deepEqual(comparable(again), comparable(stored), `${c.name}: re-created pod changed`);
    } finally {
      await deletePolicy(c.name);
    }
  }
});

/**
 * The pod with the status annotation's signature taken out: only the webhook can sign (a policy
 * has no key). With `undo`, the undo record too.
 */
function unsigned(pod: Obj, drop: { undo?: boolean } = {}): Obj {
  const p = comparable(pod);
  const annotations = p.metadata?.annotations ?? {};
  for (const [k, v] of Object.entries(annotations)) {
    if (typeof v !== 'string' || !v.startsWith('{')) continue;
    try {
      const status = JSON.parse(v) as Obj;
      if (typeof status.mac !== 'string') continue;
      delete status.mac;
      if (drop.undo) delete status.undo;
      annotations[k] = JSON.stringify(status);
    } catch {
      /* not JSON: not a status */
    }
  }
  return p;
}

test("17: policy and webhook both installed (a migration): one sidecar per pod; webhook and policy give the same pod (but for the webhook's signature)", async () => {
  const config = join(tmp, 'both.yaml');
  writeFileSync(config, WORKLOAD_CONFIG);
  const ns = await namespace('i17-policy-both', { 'i17-injection': 'enabled' });
  const pod = app('both', { initContainers: [{ name: 'setup', image: 'registry.example/setup:1' }] });
  const count = (list: Obj[] | undefined, name: string) => (list ?? []).filter((c) => c.name === name).length;
  const injected = ['i17-agent', 'i17-native'];

  // The webhook alone. The apiserver calls it twice: after its patch the ServiceAccount plugin
  // (re-run on reinvocation) mounts the token into the sidecars, and the webhook, reinvoked,
  // finds its own current injection and leaves the pod as it is (inject/current.ts), mounts included.
  // The apiserver drops deleted policies asynchronously: none of an earlier scenario may still act here.
  await waitFor(`no policy acting in ${ns}`, async () => !hasContainer(await admit(ns, app('probe')), 'i17-agent'), 30_000, 300);
  const alone = await startWebhook({ name: 'i17-both', config });
  let webhookOnly: Obj;
  try {
    await waitActive(ns, app('probe'), 'i17-agent');
    webhookOnly = await admit(ns, pod);
  } finally {
    await alone.remove();
  }
  await applyPolicy(config, 'i17-both');
  try {
    await waitActive(ns, app('probe'), 'i17-agent');
    const policyOnly = await admit(ns, pod);
    // The policy runs once (it skips the pod once the status annotation is there); the sidecars keep the token mount either way.
    assert.deepEqual(unsigned(policyOnly), unsigned(webhookOnly));
    const hook = await startWebhook({ name: 'i17-both', config, serveArgs: ['--log-level', 'info'] });
    try {
      const calls = () =>
        hook
          .output()
          .split('\n')
          .filter((l) => l.includes(`"namespace":"${ns}"`) && l.includes('"decision":"injected"')).length;
      await waitFor('the webhook to be called', async () => (await admit(ns, pod), calls() > 0), 30_000, 300);
      for (let i = 0; i < 3; i++) {
        const before = calls();
        const both = await admit(ns, pod);
        // Its log line is written asynchronously, and may reach us after the apiserver's answer
        // (sooner or later while the warm-up goes on after ready).
        await waitFor('the webhook to log its call for this pod too', async () => calls() > before, 10_000, 50);
        for (const name of injected) {
          assert.equal(count(both.spec.containers, name) + count(both.spec.initContainers, name), 1, `one ${name}`);
        }
        // The policy injects first (MutatingAdmissionPolicy runs before webhooks), the webhook
        // re-injects over the policy's unsigned status: the webhook's pod, but for the undo
        // record, which the webhook computed against the pod as the policy left it.
        assert.deepEqual(unsigned(both, { undo: true }), unsigned(webhookOnly, { undo: true }));
      }
    } finally {
      await hook.remove();
    }
  } finally {
    await deletePolicy('i17-both');
  }
});

interface Case {
  name: string;
  config: { policy: string; neverInjectSelector: unknown[]; alwaysInjectSelector: unknown[] };
  pod: { namespace: string; hostNetwork: boolean; labels: Record<string, string>; annotations: Record<string, string> };
  inject: boolean;
}

const TABLE = join(repoRoot, '../shared/conformance/istio/inject-required.yaml');
const IGNORED = ['kube-system', 'kube-public', 'kube-node-lease', 'local-path-storage'];

test("17: the policy decides as decide does on Istio's decision table", { skip: existsSync(TABLE) ? false : `no ${TABLE}` }, async (t) => {
  const cases = (parse(readFileSync(TABLE, 'utf8')) as { cases: Case[] }).cases;
  const configs = [...new Set(cases.map((c) => JSON.stringify(c.config)))];
  const template = 'spec:\n  containers:\n  - name: i17-dt\n    image: registry.example/dt:1\n';
  // One policy per distinct config, each bound to its own namespace only (the test narrows the bindings).
  await Promise.all(
    configs.map(async (cfgText, i) => {
      const path = join(tmp, `dt-${i}.yaml`);
      writeFileSync(path, JSON.stringify({ ...JSON.parse(cfgText), defaultTemplates: ['dt'], templates: { dt: template } }));
      await namespace(`i17-dt-${i}`, { 'istio-injection': 'enabled' });
    }),
  );
  try {
    // A config with an invalid selector or policy does not load (the webhook refuses it too); its cases are not run.
    const refused = new Set<number>();
    for (let i = 0; i < configs.length; i++) {
      try {
        await applyPolicy(join(tmp, `dt-${i}.yaml`), `i17-dt-${i}`, `i17-dt-${i}`);
      } catch (err) {
        if (!/SI_CONFIG_INVALID/.test((err as Error).message)) throw err;
        refused.add(i);
      }
    }
    const checked: string[] = [];
    const mismatches: string[] = [];
    for (const c of cases) {
      const i = configs.indexOf(JSON.stringify(c.config));
      const ns = `i17-dt-${i}`;
      if (refused.has(i)) continue;
      if (IGNORED.includes(c.pod.namespace)) {
        // Never reached: every binding excludes the ignored namespaces by name, and a match condition repeats it.
        const bindings = JSON.parse((await kubectl(['get', 'mutatingadmissionpolicybinding', '-l', LABEL, '-o', 'json'])).stdout) as Obj;
        for (const b of bindings.items.filter((x: Obj) => x.spec.policyName === ns)) {
          const notIn = b.spec.matchResources.namespaceSelector.matchExpressions.find(
            (e: Obj) => e.operator === 'NotIn' && e.key === 'kubernetes.io/metadata.name',
          );
          assert.ok(notIn.values.includes(c.pod.namespace), `${c.name}: binding ${b.metadata.name} excludes ${c.pod.namespace}`);
        }
        assert.equal(c.inject, false);
        continue;
      }
      if (c.config.policy === 'enabled' || c.config.policy === 'disabled') {
        // The policy is active once a pod that opted in is injected.
        await waitActive(
          ns,
          {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: 'probe', labels: { 'sidecar.istio.io/inject': 'true' } },
            spec: { containers: [{ name: 'a', image: 'x' }] },
          },
          'i17-dt',
        );
      }
      const pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'case', labels: c.pod.labels, annotations: c.pod.annotations },
        spec: { hostNetwork: c.pod.hostNetwork, containers: [{ name: 'a', image: 'x' }] },
      };
      const r = await kubectl(['-n', ns, 'create', '-f', '-', '--dry-run=server', '-o', 'json'], { input: JSON.stringify(pod), allowFail: true });
      if (r.code !== 0) {
        mismatches.push(`${c.name}: the apiserver refused the pod: ${r.stderr.trim()}`);
        continue;
      }
      const injected = hasContainer(JSON.parse(r.stdout) as Obj, 'i17-dt');
      checked.push(c.name);
      if (injected !== c.inject) mismatches.push(`${c.name}: policy ${injected}, decide ${c.inject}`);
    }
    t.diagnostic(
      `${checked.length} of ${cases.length} cases created on the apiserver; ${[...refused].length} of ${configs.length} configs refused at load (an invalid selector or policy)`,
    );
    assert.deepEqual(mismatches, []);
    assert.ok(checked.length >= 40, `only ${checked.length} cases reached the apiserver`);
  } finally {
    await kubectl(['delete', 'mutatingadmissionpolicybinding,mutatingadmissionpolicy', '-l', LABEL, '--ignore-not-found'], { allowFail: true });
  }
});
