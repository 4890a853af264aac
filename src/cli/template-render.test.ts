import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import fc from 'fast-check';
import { runCli } from './command-tree.js';
import { memoryIO } from '../../test/support/memory-io.js';
import { errorInfo } from '../errors.js';
import { jsonErrorOffset } from './template-render-run.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const EXAMPLE_TPL = join(ROOT, 'examples/template/sidecar.tpl');
const EXAMPLE_VALUES = join(ROOT, 'examples/template/values.yaml');

const dir = mkdtempSync(join(tmpdir(), 'tpl-render-'));
function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

async function render(argv: string[], stdin = ''): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIO(stdin);
  const code = await runCli(['template', 'render', ...argv], io);
  return { code, out: io.out, err: io.err };
}

// What Go's text/template + Sprig prints for the example (checked with gotemplate-ref on the
// same values converted to JSON): the README shows this command and this output.
const EXAMPLE_OUTPUT = `spec:
  containers:
  - name: log-shipper
    image: "registry.example.com/observability/log-shipper:1.4.2"
    imagePullPolicy: IfNotPresent
    args:
    - "--input=/var/log/app"
    - "--format=json"
    env:
    - name: POD_NAME
      value: "checkout-7d9f6c5b8-x2k4q"
    - name: POD_NAMESPACE
      value: "shop"
    - name: LOG_LEVEL
      value: "debug"
    - name: CLUSTER
      value: "prod-eu-1"
    - name: EXCLUDE_PATHS
      value: "[\\"/healthz\\",\\"/metrics\\"]"
    ports:
    - name: metrics
      containerPort: 9102
      protocol: TCP
    readinessProbe:
      httpGet:
        path: /ready
        port: 9102
      periodSeconds: 10
    resources: {"limits":{"memory":"96Mi"},"requests":{"cpu":"25m","memory":"32Mi"}}
    securityContext:
      allowPrivilegeEscalation: false
      readOnlyRootFilesystem: true
      runAsNonRoot: true
    volumeMounts:
    - name: app-logs
      mountPath: /var/log/app
      readOnly: true
  volumes:
  - name: app-logs
    emptyDir: {}
`;

test('the README example renders the sidecar overlay a user expects', async () => {
  const r = await render([EXAMPLE_TPL, '--data', EXAMPLE_VALUES]);
  assert.equal(r.err, '');
  assert.equal(r.code, 0);
  assert.equal(r.out, EXAMPLE_OUTPUT);
  // And it is a usable pod overlay: the annotation overrides the log level, ports stay numbers.
  const overlay = parseYaml(r.out) as {
    spec: { containers: { name: string; env: { name: string; value: string }[]; ports: { containerPort: number }[] }[] };
  };
  const [c] = overlay.spec.containers;
  assert.equal(c?.name, 'log-shipper');
  assert.deepEqual(
    c?.env.find((e) => e.name === 'LOG_LEVEL'),
    { name: 'LOG_LEVEL', value: 'debug' },
  );
  assert.equal(c?.ports[0]?.containerPort, 9102);
});

test("the example without the annotation falls back to the values' log level", async () => {
  const values = readFileSync(EXAMPLE_VALUES, 'utf8').replace(/^ {4}logging\.example\.com\/level: debug\n/m, '');
  const r = await render([EXAMPLE_TPL, '--data', file('values-no-level.yaml', values)]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /- name: LOG_LEVEL\n {6}value: "info"\n/);
});

test('output is printed exactly, with no newline added', async () => {
  const r = await render([file('exact.tpl', 'no newline {{ .x }}'), '--data', file('exact.json', '{"x": "here"}')]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'no newline here');
});

test('JSON data decodes numbers as Go float64 does', async () => {
  const r = await render([file('num.tpl', '{{ .a }} {{ .b }} {{ .c }}'), '--data', file('num.json', '{"a": 1000000, "b": 2.5, "c": 0.00001}')]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, '1e+06 2.5 1e-05');
});

test('YAML data is read as Kubernetes reads it: YAML 1.1 booleans and octals, dates stay strings', async () => {
  const tpl = file('y11.tpl', '{{ .enabled }} {{ .mode }} {{ .date }} {{ .replicas }} {{ .version }} {{ printf "%T" .replicas }} {{ index . "true" }}');
  // `y` is a YAML 1.1 boolean, so the key becomes "true", as sigs.k8s.io/yaml makes it.
  const data = file('y11.yaml', 'enabled: yes\nmode: 0755\ndate: 2024-01-02\nreplicas: 3\nversion: "1.10"\ny: key\n');
  const r = await render([tpl, '--data', data]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'true 493 2024-01-02 3 1.10 float64 key');
});

test('YAML merge keys are honoured', async () => {
  const r = await render([file('merge.tpl', '{{ .b.p }} {{ .b.q }}'), '--data', file('merge.yaml', 'a: &a {p: 1, q: 2}\nb:\n  <<: *a\n  q: 3\n')]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, '1 3');
});

test('--data - reads the data from stdin', async () => {
  const r = await render([file('stdin.tpl', 'hello {{ .who }}'), '--data', '-'], 'who: stdin\n');
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'hello stdin');
});

test('the template can come from stdin', async () => {
  const r = await render(['-', '--data', file('d.json', '{"n": 1}')], '{{ .n }}!');
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, '1!');
});

test('without --data the data is nil', async () => {
  const r = await render([file('nil.tpl', '[{{ . }}] [{{ .x }}] {{ if . }}set{{ else }}empty{{ end }}')]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, '[<no value>] [<no value>] empty');
});

test('an empty YAML data file is nil data', async () => {
  const r = await render([file('empty.tpl', '{{ if . }}set{{ else }}empty{{ end }}'), '--data', file('empty.yaml', '# nothing here\n')]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'empty');
});

test('a template parse error is reported Go-style with the file name, exit status of SI_TEMPLATE_PARSE', async () => {
  const r = await render([file('bad.tpl', 'line one\n{{ if .x }}never closed\n')]);
  assert.equal(r.code, errorInfo('SI_TEMPLATE_PARSE').exitCode);
  assert.notEqual(r.code, 0);
  assert.equal(r.out, '');
  assert.match(r.err, /SI_TEMPLATE_PARSE/);
  assert.match(r.err, /template: bad\.tpl:3: unexpected EOF/);
});

test("an execution error prints nothing to stdout and Go's message to stderr", async () => {
  const r = await render([file('exec.tpl', 'partial {{ .a.b }}'), '--data', file('exec.json', '{"a": 1}')]);
  assert.equal(r.code, errorInfo('SI_TEMPLATE_EXEC').exitCode);
  assert.equal(r.out, '');
  assert.match(r.err, /template: exec\.tpl:1:13: executing "exec\.tpl" at <\.a\.b>: can't evaluate field b in type interface \{\}/);
});

test("fail from a template is an execution error carrying the template's message", async () => {
  const r = await render([file('fail.tpl', '{{ if not .image }}{{ fail "values: image is required" }}{{ end }}'), '--data', file('fail.yaml', 'tag: x\n')]);
  assert.notEqual(r.code, 0);
  assert.match(r.err, /error calling fail: values: image is required/);
});

test('invalid YAML data names the file and line', async () => {
  const data = file('broken.yaml', 'a: 1\nb: [1, 2\nc: 3\n');
  const r = await render([file('ok.tpl', '{{ .a }}'), '--data', data]);
  assert.equal(r.code, errorInfo('SI_INPUT_YAML').exitCode);
  assert.equal(r.out, '');
  assert.match(r.err, /SI_INPUT_YAML/);
  assert.ok(r.err.includes(`${data}: line `), r.err);
});

test('invalid JSON data names the file and line', async () => {
  const data = file('broken.json', '{\n  "a": 1,\n  "b": oops\n}\n');
  const r = await render([file('ok2.tpl', '{{ .a }}'), '--data', data]);
  assert.equal(r.code, errorInfo('SI_INPUT_YAML').exitCode);
  assert.ok(r.err.includes(`${data}: line 3, column 8: invalid JSON: unexpected "o"`), r.err);
});

test('truncated JSON data is reported at its end', async () => {
  const data = file('truncated.json', '{"a": [1, 2');
  const r = await render([file('ok5.tpl', '{{ .a }}'), '--data', data]);
  assert.equal(r.code, errorInfo('SI_INPUT_YAML').exitCode);
  assert.ok(r.err.includes(`${data}: line 1, column 12: invalid JSON: unexpected end of input`), r.err);
});

test('data with several YAML documents is refused', async () => {
  const r = await render([file('ok3.tpl', '{{ . }}'), '--data', file('multi.yaml', 'a: 1\n---\nb: 2\n')]);
  assert.equal(r.code, errorInfo('SI_INPUT_YAML').exitCode);
  assert.match(r.err, /2 YAML documents/);
});

test(".inf in YAML data is refused, as Go's YAML -> JSON decode refuses it", async () => {
  const r = await render([file('ok4.tpl', '{{ .x }}'), '--data', file('inf.yaml', 'x: .inf\n')]);
  assert.equal(r.code, errorInfo('SI_INPUT_YAML').exitCode);
  assert.match(r.err, /\.x is Infinity/);
});

test('a missing template file is a file-read error naming it', async () => {
  const missing = join(dir, 'nope.tpl');
  const r = await render([missing]);
  assert.equal(r.code, errorInfo('SI_FILE_READ').exitCode);
  assert.ok(r.err.includes(missing));
});

test('--name executes a defined template', async () => {
  const tpl = file('named.tpl', '{{ define "greeting" }}hi {{ .who }}{{ end }}main');
  const r = await render([tpl, '--name', 'greeting', '--data', file('named.json', '{"who": "there"}')]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'hi there');
});

test('--name with an unknown template lists the defined ones', async () => {
  const tpl = file('named2.tpl', '{{ define "a" }}A{{ end }}{{ define "b" }}B{{ end }}');
  const r = await render([tpl, '--name', 'c']);
  assert.equal(r.code, errorInfo('SI_USAGE').exitCode);
  assert.match(r.err, /no template named "c"/);
  assert.match(r.err, /"a"/);
  assert.match(r.err, /"b"/);
});

test('env is only available with --allow-env', async () => {
  process.env.SI_TEMPLATE_RENDER_TEST = 'from-env';
  try {
    const tpl = file('env.tpl', '{{ env "SI_TEMPLATE_RENDER_TEST" "unset" }}');
    const denied = await render([tpl]);
    assert.notEqual(denied.code, 0);
    assert.ok(!denied.out.includes('from-env'));
    const allowed = await render([tpl, '--allow-env']);
    assert.equal(allowed.code, 0, allowed.err);
    assert.equal(allowed.out, 'from-env');
  } finally {
    delete process.env.SI_TEMPLATE_RENDER_TEST;
  }
});

test('--output-file writes the rendering to a file', async () => {
  const out = join(dir, 'out.yaml');
  const r = await render([file('o.tpl', 'x: {{ .x }}\n'), '--data', file('o.json', '{"x": 2}'), '--output-file', out]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, '');
  assert.equal(readFileSync(out, 'utf8'), 'x: 2\n');
});

test("the product's functions are available (Sprig and injector)", async () => {
  const r = await render([file('funcs.tpl', '{{ "a,b" | splitList "," | toJson }} {{ .x | default "d" | quote }}')]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, '["a","b"] "d"');
});

test('the JSON error locator agrees with JSON.parse on what is valid (property)', () => {
  const texts = fc.oneof(
    fc.jsonValue().map((v) => JSON.stringify(v, null, 1)),
    fc
      .tuple(
        fc.jsonValue().map((v) => JSON.stringify(v)),
        fc.nat(),
        fc.constantFrom('', '}', ']', ',', '"', 'x', ':', '\\', '\n', '0', '-', '.'),
      )
      .map(([t, at, ch]) => {
        const k = at % (t.length + 1);
        return t.slice(0, k) + ch + t.slice(k + (ch === '' ? 1 : 0));
      }),
  );
  fc.assert(
    fc.property(texts, (text) => {
      let valid = true;
      try {
        JSON.parse(text);
      } catch {
        valid = false;
      }
      const at = jsonErrorOffset(text);
      return valid ? at === -1 : at >= 0 && at <= text.length;
    }),
    { numRuns: 2000 },
  );
});
