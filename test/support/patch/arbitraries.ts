/**
 * @module test/support/patch/arbitraries
 * fast-check generators for the patch engines: JSON values with awkward keys (`/`, `~`,
 * dotted annotation keys), pod-like documents with unique container/env names, sidecar-style
 * edits of those pods, and strategic-merge overlays.
 */
import fc from 'fast-check';
import { cloneJson, type JsonObject, type JsonValue } from '../../../src/util/json.js';
import { setOwn } from '../../../src/util/own.js';

/** Keys that break naive pointer code, plus ordinary ones. `__proto__` is opt-in. */
const AWKWARD_KEYS = ['a', 'b', 'name', '', '~', '/', '~1', '~0', 'a/b', 'a~b', 'sidecar.istio.io/status', 'constructor', 'toString'];

function keyArb(withProto = false): fc.Arbitrary<string> {
  const special = withProto ? [...AWKWARD_KEYS, '__proto__'] : AWKWARD_KEYS;
  return fc.oneof(fc.constantFrom(...special), fc.string({ maxLength: 6 }));
}

/** Build an object from entries; a `__proto__` key stays an own data property. */
export function objectOf(entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) setOwn(out, k, v);
  return out;
}

const scalarArb: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -5, max: 5 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => (Object.is(d, -0) ? 0 : d)),
  fc.constantFrom('x', 'y', ''),
  fc.string({ maxLength: 5 }),
);

/** Arbitrary JSON (small, nested), with awkward keys. */
export function jsonArb(withProto = false): fc.Arbitrary<JsonValue> {
  const { value } = fc.letrec<{ value: JsonValue }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      scalarArb,
      fc.array(tie('value'), { maxLength: 5 }),
      fc.uniqueArray(fc.tuple(keyArb(withProto), tie('value')), { maxLength: 5, selector: ([k]) => k }).map((entries) => objectOf(entries) as JsonObject),
    ),
  }));
  return value;
}

/** A pair of related JSON values: the second is an edited copy of the first (so diffs are interesting). */
export function jsonPairArb(withProto = false): fc.Arbitrary<[JsonValue, JsonValue]> {
  return fc.oneof(
    fc.tuple(jsonArb(withProto), jsonArb(withProto)),
    fc.tuple(jsonArb(withProto), fc.array(fc.tuple(fc.nat(), jsonArb(withProto), fc.nat(3)), { maxLength: 4 })).map(([a, edits]) => {
      let b = cloneJson(a);
      for (const [where, value, how] of edits) b = editAt(b, where, cloneJson(value), how);
      return [a, b] as [JsonValue, JsonValue];
    }),
  );
}

/** Change one spot of a document (picked by `where`): replace, insert, delete or set a key. */
function editAt(doc: JsonValue, where: number, value: JsonValue, how: number): JsonValue {
  const spots: Array<JsonValue[] | JsonObject> = [];
  const walk = (v: JsonValue) => {
    if (Array.isArray(v)) {
      spots.push(v);
      v.forEach(walk);
    } else if (v !== null && typeof v === 'object') {
      spots.push(v);
      Object.keys(v).forEach((k) => walk(v[k]));
    }
  };
  walk(doc);
  if (spots.length === 0) return value;
  const spot = spots[where % spots.length];
  if (Array.isArray(spot)) {
    const i = spot.length === 0 ? 0 : where % (spot.length + (how === 1 ? 1 : 0));
    if (how === 0 && spot.length > 0) spot[i % spot.length] = value;
    else if (how === 1) spot.splice(i, 0, value);
    else if (how === 2 && spot.length > 0) spot.splice(i % spot.length, 1);
    else spot.push(value);
  } else {
    const keys = Object.keys(spot);
    if (how === 2 && keys.length > 0) delete spot[keys[where % keys.length]];
    else
      Object.defineProperty(spot, keys.length > 0 && how === 0 ? keys[where % keys.length] : `k${where % 7}`, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return doc;
}

const nameArb = fc.constantFrom('app', 'web', 'istio-proxy', 'istio-init', 'log', 'db', 'cache', 'side');
const envArb = fc.record({ name: fc.constantFrom('A', 'B', 'C', 'D', 'E', 'PATH', 'HOME'), value: fc.string({ maxLength: 4 }) }, { noNullPrototype: true });

function containerArb(): fc.Arbitrary<JsonObject> {
  return fc.record(
    {
      name: nameArb,
      image: fc.constantFrom('nginx', 'proxy:1', 'busybox'),
      env: fc.uniqueArray(envArb, { maxLength: 5, selector: (e) => e.name }),
      volumeMounts: fc.uniqueArray(fc.record({ name: fc.constantFrom('v1', 'v2'), mountPath: fc.constantFrom('/a', '/b', '/c') }, { noNullPrototype: true }), {
        maxLength: 3,
        selector: (m) => m.mountPath,
      }),
      ports: fc.uniqueArray(fc.record({ containerPort: fc.constantFrom(80, 8080, 15090) }, { noNullPrototype: true }), {
        maxLength: 2,
        selector: (p) => p.containerPort,
      }),
      args: fc.array(fc.constantFrom('-v', '--x', 'run'), { maxLength: 3 }),
    },
    { requiredKeys: ['name'], noNullPrototype: true },
  ) as fc.Arbitrary<JsonObject>;
}

const containersArb = (max: number) => fc.uniqueArray(containerArb(), { maxLength: max, selector: (c) => c.name });

/** A pod-like document: unique names where Kubernetes requires them, optional/null parents. */
export function podArb(): fc.Arbitrary<JsonObject> {
  const annotations = fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.dictionary(fc.constantFrom('a', 'sidecar.istio.io/status', 'x~y', 'prometheus.io/port'), fc.string({ maxLength: 4 }), {
      maxKeys: 3,
      noNullPrototype: true,
    }),
  );
  return fc
    .record({
      name: fc.constantFrom('p', 'q'),
      annotations,
      labels: fc.dictionary(fc.constantFrom('app', 'version'), fc.constantFrom('v1', 'v2'), { maxKeys: 2, noNullPrototype: true }),
      containers: containersArb(4),
      initContainers: fc.oneof(fc.constant(undefined), fc.constant(null), containersArb(2)),
      volumes: fc.uniqueArray(fc.record({ name: fc.constantFrom('v1', 'v2', 'istio-envoy'), emptyDir: fc.constant({}) }, { noNullPrototype: true }), {
        maxLength: 3,
        selector: (v) => v.name,
      }),
    })
    .map(({ name, annotations, labels, containers, initContainers, volumes }) => {
      const metadata: JsonObject = { name, labels };
      if (annotations !== undefined) metadata.annotations = annotations;
      const spec: JsonObject = { containers, volumes };
      if (initContainers !== undefined) spec.initContainers = initContainers;
      return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
    });
}

/** What an injector does to a pod: add/remove/edit containers, env, volumes and annotations. */
export function podPairArb(): fc.Arbitrary<[JsonObject, JsonObject]> {
  return fc
    .tuple(podArb(), containersArb(2), fc.array(fc.nat(), { minLength: 8, maxLength: 8 }))
    .map(([pod, sidecars, r]) => [pod, injectLike(pod, sidecars, r)] as [JsonObject, JsonObject]);
}

function injectLike(pod: JsonObject, sidecars: JsonObject[], r: number[]): JsonObject {
  const out = cloneJson(pod);
  const meta = out.metadata as JsonObject;
  const spec = out.spec as JsonObject;
  const containers = spec.containers as JsonObject[];
  const names = new Set(containers.map((c) => c.name));
  // Insert sidecars at chosen positions (front, middle, end), skipping names already used.
  for (const [i, s] of sidecars.entries()) {
    if (names.has(s.name)) continue;
    names.add(s.name);
    containers.splice(r[i] % (containers.length + 1), 0, s);
  }
  if (r[2] % 3 === 0 && containers.length > 1) containers.splice(r[3] % containers.length, 1);
  if (containers.length > 0 && r[4] % 2 === 0) {
    const c = containers[r[4] % containers.length];
    const env = (c.env as JsonObject[] | undefined) ?? [];
    env.push({ name: 'INJECTED', value: String(r[5]) });
    if (env.length > 1 && r[5] % 2 === 0) (env[0] as JsonObject).value = 'changed';
    c.env = env;
  }
  if (r[6] % 2 === 0) {
    spec.initContainers = [
      { name: 'istio-init', image: 'proxy:1' },
      ...((spec.initContainers as JsonObject[] | null) ?? []).filter((c) => c.name !== 'istio-init'),
    ];
  }
  (spec.volumes as JsonObject[]).push(...[{ name: 'istio-data', emptyDir: {} }].filter(() => r[7] % 2 === 0));
  const ann = (meta.annotations as JsonObject | null | undefined) ?? {};
  meta.annotations = { ...ann, 'sidecar.istio.io/status': `{"containers":["istio-proxy"],"n":${r[7]}}` };
  if (r[1] % 4 === 0) delete meta.labels;
  return out;
}

/** A strategic-merge overlay for a pod: containers (new or existing names), env, annotations with nulls. */
export function overlayArb(options: { deletes?: boolean } = {}): fc.Arbitrary<JsonObject> {
  const annotations = fc.dictionary(
    fc.constantFrom('a', 'sidecar.istio.io/status', 'x~y', 'new/key'),
    options.deletes === false ? fc.string({ maxLength: 3 }) : fc.oneof(fc.string({ maxLength: 3 }), fc.constant(null)),
    { maxKeys: 3, noNullPrototype: true },
  );
  return fc
    .record(
      {
        metadata: fc.record(
          { annotations, labels: fc.dictionary(fc.constantFrom('app', 'sidecar'), fc.constantFrom('v1', 'v9'), { maxKeys: 2, noNullPrototype: true }) },
          {
            requiredKeys: [],
          },
        ),
        spec: fc.record(
          {
            containers: containersArb(3),
            initContainers: containersArb(2),
            volumes: fc.uniqueArray(
              fc.record({ name: fc.constantFrom('v1', 'istio-envoy', 'istio-data'), emptyDir: fc.constant({ medium: 'Memory' }) }, { noNullPrototype: true }),
              {
                maxLength: 2,
                selector: (v) => v.name,
              },
            ),
          },
          { requiredKeys: [], noNullPrototype: true },
        ),
      },
      { requiredKeys: [], noNullPrototype: true },
    )
    .map((o) => o as JsonObject);
}
