/**
 * The compact undo record (status format 2, issue 37): with Istio's own config, on a Deployment's
 * pod with probes and Prometheus annotations, the status annotation stays under 400 bytes with
 * its MAC and carries no undo entry (the probes and the scrape settings come back from the
 * removed proxy), while uninject(inject(x)) is still x and re-injection changes nothing. Members
 * others add after injection stay; a status written before issue 37 still strips exactly.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { istioChartConfig, istioChartPresent } from '../../test/support/istio-chart.js';
import { injectChecked } from '../../test/support/inject-fixtures.js';
import { defaultConfig } from '../profiles/index.js';
import { cloneJson, type JsonObject } from '../util/json.js';
import { injectPod, uninjectPod } from './index.js';
import { StatusKeys } from './status-mac.js';
import { memberHash } from './strip-record.js';
import type { InjectedResult, InjectionContext } from './types.js';

type Obj = Record<string, unknown>;
const STATUS = 'sidecar.istio.io/status';
const keys = new StatusKeys();
keys.rotate(createHash('sha256').update('strip-record').digest());
const CTX: InjectionContext = { namespace: 'shop', mode: 'webhook', statusKeys: keys };

function probe(path: string, port: number): JsonObject {
  return { httpGet: { path, port, scheme: 'HTTP' }, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 };
}

/** A ReplicaSet's pod: two containers with HTTP probes, Prometheus annotations, the token volume. */
function deploymentPod(): JsonObject {
  const container = (name: string, port: number): JsonObject => ({
    name,
    image: `registry.example/${name}:1.4`,
    ports: [{ containerPort: port, protocol: 'TCP' }],
    readinessProbe: probe('/ready', port),
    livenessProbe: probe('/healthz', port),
    resources: { requests: { cpu: '100m', memory: '128Mi' } },
  });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: 'checkout-7d4b9c-',
      namespace: 'shop',
      labels: { app: 'checkout', 'pod-template-hash': '7d4b9c', version: 'v1', 'sidecar.istio.io/inject': 'true' },
      annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'checkout-7d4b9c', uid: '00000000-0000-4000-8000-000000000001', controller: true }],
    },
    spec: {
      containers: [container('checkout', 8080), container('log-shipper', 8081)],
      volumes: [{ name: 'kube-api-access-x1y2z', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }],
      serviceAccountName: 'checkout',
    },
  };
}

function statusOf(r: InjectedResult): string {
  return ((r.pod.metadata as Obj).annotations as Obj)[STATUS] as string;
}

describe('status format 2', () => {
  it("Istio's config on a Deployment's pod: the status is under 400 bytes with its MAC, has no undo entry, and strips exactly", {
    skip: !istioChartPresent() && 'no Istio chart',
  }, () => {
    const config = istioChartConfig();
    const pod = deploymentPod();
    const r = injectChecked(pod, CTX, config);
    const text = statusOf(r);
    assert.ok(Buffer.byteLength(text) <= 400, `${Buffer.byteLength(text)} bytes: ${text}`);
    assert.match(text, /,"mac":"[A-Za-z0-9_-]{22}"\}$/);
    assert.equal(r.status.v, 2);
    assert.equal(r.status.undo, undefined, 'probes and scrape settings come back from the removed proxy');
    // Istio did rewrite them: what the record leaves out is really changed in the pod.
    const app = ((r.pod.spec as Obj).containers as Obj[]).find((c) => c.name === 'checkout')!;
    assert.equal(((app.readinessProbe as Obj).httpGet as Obj).path, '/app-health/checkout/readyz');
    assert.equal(((r.pod.metadata as Obj).annotations as Obj)['prometheus.io/port'], '15020');
    // Istio's readers: its fields first, in its order, as JSON it decodes into its struct.
    const parsed = JSON.parse(text) as Obj;
    assert.deepEqual(Object.keys(parsed).slice(0, 3), ['initContainers', 'volumes', 'revision']);
    assert.ok((parsed.initContainers as string[]).includes('istio-proxy'));
  });

  it('labels and annotations added after injection stay when the sidecar is stripped; a value the pod had stays', () => {
    const config = defaultConfig();
    const pod = deploymentPod();
    ((pod.metadata as Obj).annotations as Obj)['kubectl.kubernetes.io/default-container'] = 'checkout';
    const r = injectChecked(pod, CTX, config);
    assert.ok(!(r.status.rm ?? '').includes(memberHash('/metadata/annotations/kubectl.kubernetes.io~1default-container')), 'the pod had it');
    const later = cloneJson(r.pod);
    ((later.metadata as Obj).labels as Obj)['team'] = 'payments';
    ((later.metadata as Obj).annotations as Obj)['example.com/owner'] = 'ops';
    const u = uninjectPod(later, config);
    assert.equal(u.kind, 'uninjected');
    if (u.kind !== 'uninjected') return;
    const meta = u.pod.metadata as Obj;
    assert.equal((meta.labels as Obj).team, 'payments');
    assert.equal((meta.annotations as Obj)['example.com/owner'], 'ops');
    assert.equal((meta.annotations as Obj)['kubectl.kubernetes.io/default-container'], 'checkout');
  });

  it('an empty list the pod had stays in place (member order too); one the injection created goes', () => {
    const config = defaultConfig();
    const pod = deploymentPod();
    const spec = pod.spec as Obj;
    const withEmpty: JsonObject = { ...pod, spec: { initContainers: [], ...spec } };
    const r = injectChecked(withEmpty, CTX, config);
    assert.ok((r.status.undo ?? []).some((e) => e.p === '/spec/initContainers' && e.k === 1));
    const u = uninjectPod(r.pod, config);
    assert.ok(u.kind === 'uninjected');
    assert.deepEqual(Object.keys(u.pod.spec as Obj), Object.keys(withEmpty.spec as Obj));
    const r2 = injectChecked(pod, CTX, config);
    assert.ok(!(r2.status.undo ?? []).some((e) => e.p === '/spec/initContainers'));
  });

  it('a status written before issue 37 (format 1: nulls, the whole undo record) still strips exactly', () => {
    const config = defaultConfig();
    const pod = deploymentPod();
    delete (pod.metadata as Obj).annotations;
    const r = injectPod(cloneJson(pod), { namespace: 'shop', mode: 'manual' }, config) as InjectedResult;
    const injected = cloneJson(r.pod);
    // The same injection as the earlier format recorded it.
    const format1 = JSON.stringify({
      initContainers: r.status.initContainers,
      containers: r.status.containers,
      volumes: r.status.volumes,
      imagePullSecrets: null,
      revision: 'default',
      templates: r.status.templates,
      templateHash: r.status.templateHash,
      undo: [
        { p: '/metadata/annotations/kubectl.kubernetes.io~1default-container' },
        { p: '/metadata/annotations', e: 1 },
        { p: '/spec/initContainers', e: 1 },
      ],
    });
    ((injected.metadata as Obj).annotations as Obj)[STATUS] = format1;
    const u = uninjectPod(injected, config);
    assert.ok(u.kind === 'uninjected');
    assert.deepEqual(u.pod, pod);
  });
});
