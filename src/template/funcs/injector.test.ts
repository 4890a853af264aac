/**
 * @module template/funcs/injector.test
 * Istio's injection template functions. The Go oracle has plain Sprig only, so every expected
 * value here is derived from Istio's pkg/kube/inject/template.go (and the Go library calls it
 * makes: fmt.Sprint, encoding/json, sigs.k8s.io/yaml, path.Split, time.Duration.String).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTemplate } from '../index.js';
import { GO_OBJECT, GoNumber, NO_FIELD, withGoType, type GoObject } from '../value.js';
import { injectorFuncs, sprigFuncs, templateFuncs } from './index.js';
import { appendMultusNetwork, formatGoDuration, omitNil } from './injector.js';
import { nilMap } from './nil.js';

/** A minimal Go struct view for tests: Go field names mapped to values. */
function struct(goType: string, fields: Record<string, unknown>): GoObject {
  return {
    [GO_OBJECT]: true,
    goType,
    getField: (name) => (Object.hasOwn(fields, name) ? fields[name] : NO_FIELD),
    getMethod: () => undefined,
    fieldNames: () => Object.keys(fields),
    toJSON: () => fields,
  };
}

const annotations = (m: Record<string, string>): Record<string, string> => withGoType({ ...m }, 'map[string]string');

function run(t: string, data: unknown = null, funcs = templateFuncs()): string {
  return parseTemplate('t', t, { funcs }).execute(data);
}

function runError(t: string, data: unknown = null, funcs = templateFuncs()): string {
  assert.throws(() => run(t, data, funcs));
  try {
    run(t, data, funcs);
  } catch (e) {
    return (e as Error).message;
  }
  return '';
}

const meta = struct('v1.ObjectMeta', { Annotations: annotations({ 'sidecar.istio.io/proxyCPU': '200m', empty: '' }) });
const noAnnotations = struct('v1.ObjectMeta', { Annotations: null });

describe('Istio functions replace Sprig ones of the same name', () => {
  test('contains takes (needle, haystack) in both, so "/" in an image works as in Istio templates', () => {
    assert.equal(run('{{ contains "/" "docker.io/x" }}|{{ contains "docker.io/x" "/" }}'), 'true|false');
  });
  test('indent leaves the first line alone (Sprig indents it)', () => {
    assert.equal(run('[{{ indent 2 "a\\nb\\nc" }}]'), '[a\n  b\n  c]');
    assert.equal(run('[{{ indent 2 "a\\nb" }}]', null, sprigFuncs()), '[  a\n  b]');
    // Istio pads with Sprintf("% <n>s", ""): a negative width still pads (left-justified), 0 does not.
    assert.equal(run('[{{ indent -2 "a\\nb" }}]|[{{ indent 0 "a\\nb" }}]'), '[a\n  b]|[a\nb]');
  });
  test('omit works on map[string]string and returns one', () => {
    const data = { m: annotations({ a: '1', b: '2' }) };
    assert.equal(run('{{ omit .m "a" }}|{{ typeOf (omit .m) }}', data), 'map[b:2]|map[string]string');
    assert.match(runError('{{ omit (dict "a" 1) "a" }}'), /wrong type for value; expected map\[string\]string; got map\[string\]interface \{\}/);
  });
  test('toYaml is sigs.k8s.io/yaml; indent places it under a key', () => {
    const data = { r: { limits: { cpu: '2' }, requests: { memory: '128Mi', cpu: '100m' } } };
    assert.equal(
      run('resources:\n  {{ toYaml .r | indent 2 }}', data),
      'resources:\n  limits:\n    cpu: "2"\n  requests:\n    cpu: 100m\n    memory: 128Mi\n  ',
    );
  });
});

describe('annotation and isset', () => {
  test('annotation returns the annotation, or the default printed with fmt.Sprint', () => {
    const data = { ObjectMeta: meta, Values: { port: 15020, b: false, n: null } };
    const t =
      '{{ annotation .ObjectMeta "sidecar.istio.io/proxyCPU" "x" }}|{{ annotation .ObjectMeta "empty" "x" }}|' +
      '{{ annotation .ObjectMeta "missing" .Values.port }}|{{ annotation .ObjectMeta "missing" .Values.b }}|' +
      '{{ annotation .ObjectMeta "missing" .Values.n }}';
    assert.equal(run(t, data), '200m||15020|false|<nil>');
    assert.equal(run('{{ annotation .ObjectMeta "a" "d" }}', { ObjectMeta: noAnnotations }), 'd');
  });
  test('isset is key presence (an empty value counts), nil maps have no keys', () => {
    assert.equal(
      run('{{ isset .M "empty" }}|{{ isset .M "nope" }}|{{ isset .N "x" }}', { M: meta.getField('Annotations'), N: nilMap('map[string]string') }),
      'true|false|false',
    );
  });
});

describe('values and JSON', () => {
  test('valueOrDefault replaces only "" and nil', () => {
    assert.equal(
      run('{{ valueOrDefault "" "d" }}|{{ valueOrDefault .n "d" }}|{{ valueOrDefault 0 "d" }}|{{ valueOrDefault false "d" }}', { n: null }),
      'd|d|0|false',
    );
  });
  test('toJSON marshals map[string]string (keys sorted, HTML escaped); nil is {}', () => {
    assert.equal(
      run('{{ toJSON .m }}|{{ toJSON .n }}', { m: annotations({ b: '<x>', a: '1' }), n: nilMap('map[string]string') }),
      '{"a":"1","b":"\\u003cx\\u003e"}|{}',
    );
  });
  test('fromJSON decodes, and gives the string "{}" for bad JSON', () => {
    assert.equal(
      run('{{ range $k, $v := fromJSON "{\\"b\\":1,\\"a\\":[true]}" }}{{ $k }}={{ $v }};{{ end }}|{{ fromJSON "{bad" }}|{{ typeOf (fromJSON "x") }}'),
      'a=[true];b=1;|{}|string',
    );
  });
  test('structToJSON: encoding/json of any value; nil is {}', () => {
    const port = struct('v1.ContainerPort', { name: 'http', containerPort: 80 });
    assert.equal(run('{{ structToJSON .p }}|{{ structToJSON .n }}', { p: port, n: null }), '{"name":"http","containerPort":80}|{}');
  });
  test('strdict, mergeMaps and toJsonMap build map[string]string values', () => {
    const data = { a: annotations({ x: '1', y: '2' }), b: annotations({ y: '3' }) };
    assert.equal(run('{{ strdict "k" "v" "odd" }}|{{ typeOf (strdict) }}', data), 'map[k:v odd:]|map[string]string');
    assert.equal(run('{{ mergeMaps .a .b }}|{{ toJsonMap .a .b }}|{{ toJsonMap }}', data), 'map[x:1 y:3]|{"x":"1","y":"3"}|null');
  });
  test('omitNil drops nils recursively; containers left empty by it become nil', () => {
    const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
    assert.deepEqual(plain(omitNil({ a: null, b: { c: null }, d: [null, 1, { e: null }], f: {} })), { d: [1], f: {} });
    assert.equal(omitNil({ a: null }), null);
    const untouched = { a: 1, b: [1] };
    assert.equal(omitNil(untouched), untouched);
    assert.equal(run('{{ toYaml (omitNil .r) }}', { r: { limits: { cpu: null, memory: '1Gi' }, requests: null } }), 'limits:\n  memory: 1Gi\n');
  });
});

describe('paths, durations, ports, networks', () => {
  test("directory is path.Split's directory part (trailing slash kept)", () => {
    assert.equal(run('{{ directory "/etc/certs/root.pem" }}|{{ directory "root.pem" }}|{{ directory "/a/" }}'), '/etc/certs/||/a/');
  });
  test("formatDuration prints a durationpb.Duration as Go's time.Duration", () => {
    const d = (s: bigint, n: number): GoObject =>
      struct('*durationpb.Duration', { Seconds: new GoNumber('int64', s), Nanos: new GoNumber('int32', BigInt(n)) });
    const data = { a: d(45n, 0), b: d(3600n, 0), c: d(90n, 500_000_000), d: d(0n, 1500) };
    assert.equal(run('{{ formatDuration .a }}|{{ formatDuration .b }}|{{ formatDuration .c }}|{{ formatDuration .d }}', data), '45s|1h0m0s|1m30.5s|1.5µs');
    // A nil *Duration reads as zero (protobuf getters are nil-safe).
    assert.equal((injectorFuncs().formatDuration.call as (d: null) => string)(null), '0s');
    assert.equal(formatGoDuration(-1_500_000n), '-1.5ms');
    assert.equal(formatGoDuration(-(1n << 63n)), '-2562047h47m16.854775808s');
  });
  test('excludeInboundPort adds the status port once', () => {
    assert.equal(
      run(
        '{{ excludeInboundPort 15020 "" }}|{{ excludeInboundPort "15020" "1,15020" }}|{{ excludeInboundPort 0 "1" }}|{{ excludeInboundPort 15020 " 1 , 2 ," }}',
      ),
      '15020|1,15020|1|1,2,15020',
    );
  });
  test('includeInboundPorts and applicationPorts list TCP container ports', () => {
    const port = (n: number, protocol: string): GoObject => struct('v1.ContainerPort', { ContainerPort: new GoNumber('int32', BigInt(n)), Protocol: protocol });
    const c = (name: string, ports: GoObject[]): GoObject => struct('v1.Container', { Name: name, Ports: withGoType(ports, '[]v1.ContainerPort') });
    const containers = withGoType([c('app', [port(80, 'TCP'), port(53, 'UDP')]), c('istio-proxy', [port(15090, '')])], '[]v1.Container');
    assert.equal(run('{{ includeInboundPorts . }}|{{ applicationPorts . }}', containers), '80,15090|80');
  });
  test('appendMultusNetwork appends to a list or a JSON array unless already present', () => {
    assert.equal(appendMultusNetwork('', 'istio-cni'), 'istio-cni');
    assert.equal(appendMultusNetwork('a, istio-cni', 'istio-cni'), 'a, istio-cni');
    assert.equal(appendMultusNetwork('a', 'istio-cni'), 'a, istio-cni');
    assert.equal(appendMultusNetwork('[{"name": "a"}]', 'default/istio-cni'), '[{"name": "a"}, {"name": "istio-cni", "namespace": "default"}]');
    assert.equal(appendMultusNetwork('[{"name":"istio-cni","namespace":"default"}]', 'default/istio-cni'), '[{"name":"istio-cni","namespace":"default"}]');
    assert.equal(appendMultusNetwork('[not json]', 'x'), '[not json]');
  });
});

// Not from Istio's source (unavailable): from Istio PR #59207's description and its
// hello-otel-semconv golden, which expects
// "service.namespace=default,service.version=v1.2.3,service.instance.id=default.$(POD_NAME).hello".
describe('otelResourceAttributes', () => {
  const containers = withGoType([struct('v1.Container', { Name: 'hello', Image: 'fake.docker.io/hello:1.0' })], '[]v1.Container');
  const enabled = { extensionProviders: [{ name: 'otel', opentelemetry: { serviceAttributeEnrichment: 'OTEL_SEMANTIC_CONVENTIONS' } }] };
  const t = '{{ otelResourceAttributes .Mesh .Annotations .Labels "default" .Containers }}';
  test('gives the golden value when the mesh enables semantic-convention enrichment', () => {
    const data = { Mesh: enabled, Annotations: annotations({}), Labels: annotations({ 'app.kubernetes.io/version': 'v1.2.3' }), Containers: containers };
    assert.equal(run(t, data), 'service.namespace=default,service.version=v1.2.3,service.instance.id=default.$(POD_NAME).hello');
  });
  test('annotations win, the image tag is the last resort for the version', () => {
    const data = {
      Mesh: enabled,
      Annotations: annotations({ 'resource.opentelemetry.io/service.namespace': 'team' }),
      Labels: nilMap('map[string]string'),
      Containers: containers,
    };
    assert.equal(run(t, data), 'service.namespace=team,service.version=1.0,service.instance.id=default.$(POD_NAME).hello');
  });
  test('is empty (so the template adds no variable) unless enabled', () => {
    const none = nilMap('map[string]string');
    assert.equal(run(t, { Mesh: { extensionProviders: [] }, Annotations: none, Labels: none, Containers: containers }), '');
  });
  test('follows the mesh it is given, render after render (the last answer is reused only for the same JSON)', () => {
    const none = nilMap('map[string]string');
    const data = (Mesh: unknown) => ({ Mesh, Annotations: none, Labels: none, Containers: containers });
    const other = { extensionProviders: [{ name: 'otel', opentelemetry: { serviceAttributeEnrichment: 'OFF' } }] };
    const on = 'service.namespace=default,service.version=1.0,service.instance.id=default.$(POD_NAME).hello';
    const want = [on, '', '', on, ''];
    [enabled, other, { extensionProviders: [] }, enabled, { extensionProviders: [{ x: Number.NaN }] }].forEach((mesh, i) =>
      assert.equal(run(t, data(mesh)), want[i], String(i)),
    );
  });
});

describe('env', () => {
  test('is defined but refuses to run unless the config enables it', () => {
    assert.match(runError('{{ env "HOME" "d" }}', null, injectorFuncs()), /env is disabled.*config enables it/);
  });
  test('when enabled reads the given environment, with the default for unset or empty', () => {
    const funcs = templateFuncs({ allowEnv: true, env: { A: 'x', E: '' } });
    assert.equal(run('{{ env "A" "d" }}|{{ env "E" "d" }}|{{ env "MISSING" "d" }}', null, funcs), 'x|d|d');
  });
});
