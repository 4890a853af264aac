/**
 * @module cli/output.test
 * One meaning per flag (issue 27): -o is a format on every command, as in kubectl; files are
 * written with --output-file; inject/uninject keep istioctl's `-o out.yaml` for values that
 * cannot be a format name; -n is the namespace everywhere.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { memoryIO } from '../../test/support/memory-io.js';
import { runCli } from './command-tree.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-output-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

const WEB =
  '# the app\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx\n';
const SVC = 'apiVersion: v1\nkind: Service\nmetadata: {name: web}\n';

async function run(argv: string[], stdin = '') {
  const io = memoryIO(stdin);
  const code = await runCli(argv, io);
  return { code, out: io.out, err: io.err };
}

describe('-o chooses the format', () => {
  it('inject -o json prints JSON (one object) and writes no file named json', async () => {
    const r = await run(['inject', '-f', file('web.yaml', WEB), '-o', 'json']);
    assert.equal(r.code, 0, r.err);
    const pod = JSON.parse(r.out) as { kind: string; spec: { template: { spec: { containers: { name: string }[] } } } };
    assert.equal(pod.kind, 'Deployment');
    assert.deepEqual(
      pod.spec.template.spec.containers.map((c) => c.name),
      ['web', 'sidecar-proxy'],
    );
    assert.equal(existsSync('json'), false);
  });

  it('inject -o json of several documents is a v1 List; -o yaml keeps the YAML as written (comments)', async () => {
    const input = file('two.yaml', `${WEB}---\n${SVC}`);
    const json = await run(['inject', '-f', input, '-o', 'json']);
    assert.equal(json.code, 0, json.err);
    const list = JSON.parse(json.out) as { kind: string; items: { kind: string }[] };
    assert.equal(list.kind, 'List');
    assert.deepEqual(
      list.items.map((i) => i.kind),
      ['Deployment', 'Service'],
    );
    const yaml = await run(['inject', '-f', input, '-o', 'yaml']);
    assert.equal(yaml.out, (await run(['inject', '-f', input])).out);
    assert.match(yaml.out, /^# the app\n/);
  });

  it('a JSON input with -o yaml comes out as YAML', async () => {
    const r = await run(['uninject', '-f', '-', '-o', 'yaml'], JSON.stringify(parseYaml(SVC)));
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(parseYaml(r.out), parseYaml(SVC));
  });

  it('a typo of a format name is refused (exit 2), never written as a file', async () => {
    const r = await run(['inject', '-f', file('w.yaml', WEB), '-o', 'jsno']);
    assert.equal(r.code, 2);
    assert.match(r.err, /unknown output format "jsno": expected yaml or json; to write a file use --output-file jsno/);
    assert.equal(existsSync('jsno'), false);
  });

  it('istioctl kube-inject -o out.yaml: a value with a dot or slash is a file, on inject and uninject', async () => {
    const out = join(dir, 'out.yaml');
    const r = await run(['inject', '-f', file('w2.yaml', WEB), '-o', out]);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, '');
    assert.match(readFileSync(out, 'utf8'), /sidecar-proxy/);
    const back = join(dir, 'back.yaml');
    assert.equal((await run(['uninject', '-f', out, '-o', back])).code, 0);
    assert.equal(readFileSync(back, 'utf8'), WEB);
    const both = await run(['inject', '-f', out, '-o', join(dir, 'a.yaml'), '--output-file', join(dir, 'b.yaml')]);
    assert.equal(both.code, 2);
    assert.match(both.err, /both name a file: give one/);
  });

  it('--output-file writes any name, json included', async () => {
    const out = join(dir, 'json');
    const r = await run(['inject', '-f', file('w3.yaml', WEB), '--output-file', out, '-o', 'json']);
    assert.equal(r.code, 0, r.err);
    assert.equal((JSON.parse(readFileSync(out, 'utf8')) as { kind: string }).kind, 'Deployment');
  });

  it('manifests and policy: -o yaml|json, and a file name points at --output-file', async () => {
    const m = await run(['manifests', '--no-certs', '-o', 'json']);
    assert.equal(m.code, 0, m.err);
    const list = JSON.parse(m.out) as { kind: string; items: { kind: string }[] };
    assert.equal(list.kind, 'List');
    assert.ok(list.items.some((i) => i.kind === 'MutatingWebhookConfiguration'));
    const bad = await run(['manifests', '--no-certs', '-o', 'install.yaml']);
    assert.equal(bad.code, 2);
    assert.match(
      bad.err,
      /unknown output format "install\.yaml": expected yaml, json; -o chooses the output format, as in kubectl: write a file with --output-file install\.yaml/,
    );
    const p = await run(['policy', '-c', 'examples/policy-nginx-sidecar/config.yaml', '-o', 'json']);
    assert.equal(p.code, 0, p.err);
    assert.deepEqual(
      (JSON.parse(p.out) as { items: { kind: string }[] }).items.map((i) => i.kind),
      ['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding', 'MutatingAdmissionPolicyBinding'],
    );
  });

  it('explain and config check take yaml as well as json', async () => {
    const e = await run(['explain', '-f', '-', '-o', 'yaml'], WEB);
    assert.equal(e.code, 0, e.err);
    assert.equal((parseYaml(e.out) as { kind: string }[])[0].kind, 'Deployment');
    const c = await run(['config', 'check', '-o', 'yaml']);
    assert.equal(c.code, 0, c.err);
    assert.ok(Array.isArray((parseYaml(c.out) as { failures: unknown[] }).failures));
  });
});

describe('-n is the namespace', () => {
  it('template render: -n with -f is the pod namespace; without -f it says to use --name', async () => {
    const pod = file('pod.yaml', 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: a}]\n');
    const r = await run(['template', 'render', '-f', pod, '-n', 'team', '--merged', '-o', 'json']);
    assert.equal(r.code, 0, r.err);
    assert.equal((JSON.parse(r.out) as { kind: string }).kind, 'Pod');
    const t = await run(['template', 'render', file('t.tpl', '{{define "x"}}X{{end}}'), '-n', 'x']);
    assert.equal(t.code, 2);
    assert.match(t.err, /-n\/--namespace goes with -f POD; to execute a \{\{define\}\}d template use --name NAME/);
  });

  it('manifests -n and certs -n set the namespace', async () => {
    const m = await run(['manifests', '--no-certs', '-n', 'mesh']);
    assert.equal(m.code, 0, m.err);
    assert.ok(
      parseAllDocuments(m.out).every((d) => {
        const o = d.toJSON() as { kind: string; metadata: { namespace?: string; name: string } };
        return o.kind === 'Namespace' ? o.metadata.name === 'mesh' : o.metadata.namespace === undefined || o.metadata.namespace === 'mesh';
      }),
    );
  });
});
