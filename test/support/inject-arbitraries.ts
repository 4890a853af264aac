/**
 * @module test/support/inject-arbitraries
 * fast-check generators of pods for the injection core's property tests: random containers,
 * init containers, volumes, env, labels and annotations (keys with `/` and `~`), absent or null
 * maps and lists, sometimes managedFields, sometimes a user container named like the sidecar.
 */
import fc from 'fast-check';
import type { JsonObject } from '../../src/util/json.js';
import { setOwn } from '../../src/util/own.js';

const KEY_PARTS = ['app', 'a/b', 'x~y', 'example.com/role', 'k~1', 'team', 'tier', 'sidecar.istio.io/logLevel', 'z'];

function objectOf(entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) setOwn(out, k, v);
  return out;
}

const keyArb = fc.oneof(fc.constantFrom(...KEY_PARTS), fc.stringMatching(/^[a-z][a-z0-9./~-]{0,8}$/));
const stringMapArb = fc.uniqueArray(fc.tuple(keyArb, fc.string({ maxLength: 6 })), { selector: (e) => e[0], maxLength: 4 }).map(objectOf);

/** absent, null or a value. */
function maybe<T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | null | undefined> {
  return fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: arb });
}

const envArb = fc.uniqueArray(fc.record({ name: fc.stringMatching(/^[A-Z][A-Z0-9_]{0,5}$/), value: fc.string({ maxLength: 5 }) }), {
  selector: (e) => e.name,
  maxLength: 4,
});

const probeArb = fc.oneof(
  fc.record({ httpGet: fc.record({ port: fc.oneof(fc.integer({ min: 1, max: 9000 }), fc.constant('http')), path: fc.constantFrom('/', '/healthz') }) }),
  fc.record({ tcpSocket: fc.record({ port: fc.integer({ min: 1, max: 9000 }) }) }),
  fc.record({ exec: fc.record({ command: fc.constant(['true']) }) }),
);

function containerArb(name: fc.Arbitrary<string>) {
  return fc.record(
    {
      name,
      image: fc.constantFrom('app:1', 'auto', 'registry.example/x@sha256:abc'),
      env: envArb,
      ports: fc.uniqueArray(fc.record({ name: fc.constantFrom('http', 'grpc', 'metrics'), containerPort: fc.integer({ min: 1, max: 9000 }) }), {
        selector: (p) => p.containerPort,
        maxLength: 2,
      }),
      readinessProbe: probeArb,
      args: fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }),
    },
    { requiredKeys: ['name', 'image'] },
  );
}

export interface PodArbOptions {
  /** Names that user containers may take (e.g. the sidecar's, to exercise overrides). */
  sidecarNames?: readonly string[];
}

/** A pod or pod template (`{metadata, spec}`). */
export function podArb(options: PodArbOptions = {}): fc.Arbitrary<JsonObject> {
  const userNames = fc.constantFrom('app', 'web', 'worker', 'db', 'side', ...(options.sidecarNames ?? []));
  const initNames = fc.constantFrom('setup', 'migrate', 'wait');
  return fc
    .record({
      kind: fc.boolean(),
      name: maybe(fc.constantFrom('p', 'web-1')),
      namespace: maybe(fc.constantFrom('default', 'team-a')),
      labels: maybe(stringMapArb),
      annotations: maybe(stringMapArb),
      managed: fc.boolean(),
      containers: fc.uniqueArray(containerArb(userNames), { selector: (c) => c.name, minLength: 1, maxLength: 3 }),
      initContainers: maybe(fc.uniqueArray(containerArb(initNames), { selector: (c) => c.name, maxLength: 2 })),
      volumes: maybe(
        fc.uniqueArray(fc.record({ name: fc.constantFrom('data', 'cfg', 'tmp', 'sidecar-token'), emptyDir: fc.constant({}) }), {
          selector: (v) => v.name,
          maxLength: 2,
        }),
      ),
      serviceAccountName: maybe(fc.constantFrom('sa', '')),
    })
    .map((r) => {
      const metadata: Record<string, unknown> = {};
      if (r.name !== undefined) metadata.name = r.name;
      if (r.namespace !== undefined) metadata.namespace = r.namespace;
      if (r.labels !== undefined) metadata.labels = r.labels;
      if (r.annotations !== undefined) metadata.annotations = r.annotations;
      if (r.managed) metadata.managedFields = [{ manager: 'kube-controller-manager', operation: 'Update', fieldsV1: { 'f:spec': {} } }];
      const spec: Record<string, unknown> = { containers: r.containers };
      if (r.initContainers !== undefined) spec.initContainers = r.initContainers;
      if (r.volumes !== undefined) spec.volumes = r.volumes;
      if (r.serviceAccountName !== undefined) spec.serviceAccountName = r.serviceAccountName;
      const pod: Record<string, unknown> = r.kind ? { apiVersion: 'v1', kind: 'Pod', metadata, spec } : { metadata, spec };
      // Never let user init containers collide with user containers (Kubernetes forbids it).
      const names = new Set(r.containers.map((c) => c.name));
      if (Array.isArray(spec.initContainers)) spec.initContainers = (spec.initContainers as { name: string }[]).filter((c) => !names.has(c.name));
      // Plain JSON (fast-check records have no prototype; pods from JSON.parse do).
      return JSON.parse(JSON.stringify(pod)) as JsonObject;
    });
}
