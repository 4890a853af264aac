/**
 * The policy's plan applied to random pods equals the webhook's injection (the core in webhook
 * mode). `applyPlan` does in TypeScript what the generated CEL does in the apiserver, step for
 * step (fields read with has(), items before/after the pod's own, a missing list created, the
 * status annotation from fragments); the e2e scenario checks the CEL itself on the real
 * apiserver. Pods are random in every respect the plan depends on: name or generateName,
 * namespace, service account, labels and annotations (including the printed ones, with values
 * YAML would misread), which lists exist, user items.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { loadConfig, parseConfig } from '../profiles/index.js';
import type { LoadedConfig } from '../config/types.js';
import { injectPod } from '../inject/index.js';
import { cloneJson } from '../util/json.js';
import { fieldKey } from './analyze.js';
import { planPolicy } from './compile.js';
import { LISTS, renderStatus, type Probe } from './probe.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** What the generated CEL computes for `pod` in namespace `namespace`. */
function applyPlan(plan: Probe, statusKey: string, pod: Obj, namespace: string): Obj {
  const out = cloneJson(pod) as Obj;
  const meta = out.metadata;
  const nonEmpty = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const value = (f: Probe['fields'][number]): string => {
    const fd = f.field;
    const missing = f.missing ?? '';
    if (fd.kind === 'name') return nonEmpty(meta.name) ?? missing;
    if (fd.kind === 'namespace') return namespace;
    if (fd.kind === 'serviceAccountName') return nonEmpty(out.spec.serviceAccountName) ?? missing;
    const map = fd.kind === 'label' ? meta.labels : meta.annotations;
    return map !== undefined && Object.hasOwn(map, fd.key) ? map[fd.key] : missing;
  };
  const values = new Map(plan.fields.map((f) => [f.sentinel, value(f)]));
  const sub = (v: unknown): unknown => {
    if (typeof v === 'string') return [...values].reduce((s, [sentinel, x]) => s.split(sentinel).join(x), v);
    if (Array.isArray(v)) return v.map(sub);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, sub(x)]));
    return v;
  };
  const absent = (part: string) => (part === 'annotations' ? meta.annotations === undefined : out.spec[part] === undefined);
  const status = renderStatus(plan.status, absent);
  for (const l of LISTS) {
    const { before, after } = plan.lists[l];
    if (before.length + after.length === 0) continue;
    out.spec[l] = [...(sub(before) as Obj[]), ...(out.spec[l] ?? []), ...(sub(after) as Obj[])];
  }
  meta.annotations = { ...(meta.annotations ?? {}), [statusKey]: status };
  return out;
}

const labelValue = fc.oneof(
  fc.constantFrom('', 'yes', '1e3', 'true', 'null', 'web', '012', 'a_b'),
  fc.stringMatching(/^[a-z0-9]([a-z0-9._-]{0,10}[a-z0-9])?$/),
);
const anyText = fc.oneof(fc.constantFrom('a: b', '"q"', 'l1\nl2', '#x', ' ', 'ü €', '{{x}}'), fc.string({ maxLength: 12 }));
const dns = fc.stringMatching(/^[a-z]([a-z0-9-]{0,8}[a-z0-9])?$/);

function podArb(printedLabels: string[], printedAnnotations: string[]): fc.Arbitrary<Obj> {
  const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
  const keyed = (keys: string[], v: fc.Arbitrary<string>) =>
    fc
      .record(Object.fromEntries([...keys, 'other'].map((k) => [k, maybe(v)])))
      .map((r) => Object.fromEntries(Object.entries(r).filter(([, x]) => x !== undefined)) as Record<string, string>);
  const items = (prefix: string, make: (n: string) => Obj) =>
    maybe(fc.integer({ min: 1, max: 2 }).map((n) => Array.from({ length: n }, (_, i) => make(`${prefix}-${i}`))));
  return fc
    .record({
      name: fc.oneof(
        dns.map((n) => ({ name: n })),
        fc.constant({ generateName: 'gen-' }),
      ),
      labels: keyed(printedLabels, labelValue),
      annotations: keyed(printedAnnotations, anyText),
      serviceAccountName: maybe(dns),
      containers: fc.integer({ min: 1, max: 3 }).map((n) => Array.from({ length: n }, (_, i) => ({ name: `app-${i}`, image: 'app:1' }))),
      initContainers: items('setup', (n) => ({ name: n, image: 'setup:1' })),
      volumes: items('vol', (n) => ({ name: n, emptyDir: {} })),
      imagePullSecrets: items('reg', (n) => ({ name: n })),
    })
    .map((r) => {
      const metadata: Obj = { ...r.name };
      if (Object.keys(r.labels).length > 0) metadata.labels = r.labels;
      if (Object.keys(r.annotations).length > 0) metadata.annotations = r.annotations;
      const spec: Obj = { containers: r.containers };
      for (const k of ['serviceAccountName', 'initContainers', 'volumes', 'imagePullSecrets'] as const) if (r[k] !== undefined) spec[k] = r[k];
      return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
    });
}

const example = (p: string) => fileURLToPath(new URL(`../../examples/${p}`, import.meta.url));

const AGENT = `
policy: enabled
defaultTemplates: [agent]
templates:
  agent: |
    spec:
      initContainers:
      - {name: native, image: {{ .Values.image }}, restartPolicy: Always}
      containers:
      - name: agent
        image: {{ .Values.image }}
        env:
        - {name: WHO, value: "{{ .ObjectMeta.Namespace }}/{{ .ObjectMeta.Name }}"}
        - {name: SA, value: {{ .Spec.ServiceAccountName | quote }}}
        - {name: APP, value: {{ index .ObjectMeta.Labels "app" | quote }}}
        - {name: TEAM, value: {{ annotation .ObjectMeta "example.com/team" .Values.team | quote }}}
      volumes:
      - {name: data, emptyDir: {}}
      imagePullSecrets:
      - {name: agent-registry}
values: {image: "agent:1", team: none}
`;

function check(config: LoadedConfig, labels: string[], annotations: string[], optIn: Record<string, string> = {}): void {
  const { plan } = planPolicy(config);
  fc.assert(
    fc.property(podArb(labels, annotations), dns, (pod, namespace) => {
      pod.metadata.labels = { ...(pod.metadata.labels ?? {}), ...optIn };
      if (Object.keys(pod.metadata.labels).length === 0) delete pod.metadata.labels;
      const r = injectPod(pod, { namespace, mode: 'webhook' }, config);
      assert.equal(r.kind, 'injected');
      if (r.kind !== 'injected') return;
      assert.deepEqual(applyPlan(plan, config.injectionKeys.status, pod, namespace), r.pod);
    }),
    { numRuns: 150 },
  );
}

describe('the policy plan applied to random pods == the webhook injection', () => {
  it('a sidecar printing every supported pod field, every list', () => {
    const config = parseConfig(AGENT);
    assert.deepEqual(
      planPolicy(config)
        .plan.fields.map((f) => fieldKey(f.field))
        .sort(),
      ['annotation:example.com/team', 'label:app', 'name', 'namespace', 'serviceAccountName'],
    );
    check(config, ['app'], ['example.com/team']);
  });
  it('the tutorial nginx sidecar as a template (examples/policy-nginx-sidecar)', async () => {
    check(await loadConfig(example('policy-nginx-sidecar/config.yaml')), [], ['sidecar-injector-webhook.morven.me/nginx-config'], {
      'sidecar-injector-webhook.morven.me/inject': 'true',
    });
  });
  it('the tutorial nginx sidecar as the tutorial wrote it (examples/nginx-sidecar), opted in with one of its values', async () => {
    check(await loadConfig(example('nginx-sidecar/config.yaml')), [], [], { 'sidecar-injector-webhook.morven.me/inject': 'Yes' });
  });
  it('the policy log shipper (examples/policy-log-shipper)', async () => {
    check(await loadConfig(example('policy-log-shipper/config.yaml')), ['app'], [], { 'logging.example.com/ship-logs': 'true' });
  });
});
