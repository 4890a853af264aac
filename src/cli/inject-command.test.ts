import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readManifest } from '../manifest-io/index.js';
import { memoryIO } from '../../test/support/memory-io.js';
import { parseLabels } from './explain-command.js';
import { runCli } from './command-tree.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-inject-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

const WEB =
  'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx\n';
const HOST =
  'apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\n  namespace: ns\nspec:\n  template:\n    spec:\n      hostNetwork: true\n      containers:\n      - name: a\n        image: a\n';
const SVC = '# keep\napiVersion: v1\nkind: Service\nmetadata: {name: web}\n';

async function run(argv: string[], stdin = '') {
  const io = memoryIO(stdin);
  const code = await runCli(argv, io);
  return { code, out: io.out, err: io.err };
}

describe('sidecar-injector inject', () => {
  it('writes the injected stream to stdout and one line per skip to stderr', async () => {
    const r = await run(['inject', '-f', file('mix.yaml', `${SVC}---\n${HOST}---\n${WEB}`)]);
    assert.equal(r.code, 0, r.err);
    assert.equal(
      r.err,
      'skipped DaemonSet "ns/agent" (document 2): pod has hostNetwork: true; sidecars are never injected into host-network pods (host-network)\n',
    );
    const docs = readManifest(r.out, 'out');
    assert.equal(docs[0].text, SVC);
    assert.equal(docs[1].text, HOST);
    assert.match(docs[2].text, /name: sidecar-proxy/);
  });

  it('--quiet drops the skip lines; reads stdin with -f -', async () => {
    const r = await run(['inject', '-f', '-', '-q'], HOST);
    assert.equal(r.code, 0);
    assert.equal(r.err, '');
    assert.equal(r.out, HOST);
  });

  it('-o out.yaml (istioctl kube-inject) writes the file; on error the file is left untouched and nothing is printed to stdout', async () => {
    const out = file('out.yaml', 'previous content\n');
    const ok = await run(['inject', '-f', file('web.yaml', WEB), '-o', out]);
    assert.equal(ok.code, 0, ok.err);
    assert.equal(ok.out, '');
    assert.match(readFileSync(out, 'utf8'), /sidecar-proxy/);
    writeFileSync(out, 'previous content\n');
    const bad = await run(['inject', '-f', file('bad.yaml', `${WEB}---\nkind: [\n`), '-o', out]);
    assert.equal(bad.code, 5);
    assert.equal(bad.out, '');
    assert.match(bad.err, /^Error \[SI_INPUT_YAML\]: .*bad\.yaml: document 2, line \d+/);
    assert.equal(readFileSync(out, 'utf8'), 'previous content\n');
  });

  it('exit codes: injection failure 6, bad config 4, missing file 2, usage 2', async () => {
    const missing = WEB.replace('    spec:\n', '    metadata:\n      annotations: {inject.istio.io/templates: nope}\n    spec:\n');
    const inj = await run(['inject', '-f', file('m.yaml', missing)]);
    assert.equal(inj.code, 6);
    assert.match(inj.err, /SI_INJECT_TEMPLATE_MISSING/);
    assert.match(inj.err, /m\.yaml: document 1, line \d+: Deployment "shop\/web"/);
    assert.equal((await run(['inject', '-f', file('w.yaml', WEB), '--config', file('c.yaml', 'policy: [\n')])).code, 4);
    assert.equal((await run(['inject', '-f', join(dir, 'nope.yaml')])).code, 2);
    assert.equal((await run(['inject'])).code, 2);
  });

  it('--namespace fills in objects without one', async () => {
    const r = await run(['inject', '-f', '-', '-n', 'team'], HOST.replace('  namespace: ns\n', ''));
    assert.match(r.err, /DaemonSet "team\/agent"/);
  });

  it('a ResourceList on stdin is answered with a ResourceList (KRM mode)', async () => {
    const rl = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- ${WEB.trimEnd().replaceAll('\n', '\n  ')}\n`;
    const r = await run(['inject', '-f', '-'], rl);
    assert.equal(r.code, 0, r.err);
    const out = readManifest(r.out, 'out')[0].value as any;
    assert.equal(out.kind, 'ResourceList');
    assert.equal(out.items[0].spec.template.spec.containers[1].name, 'sidecar-proxy');
  });

  it('a KRM error still writes the ResourceList (items unchanged, error result) and exits non-zero', async () => {
    const rl =
      'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: p, annotations: {inject.istio.io/templates: nope}}, spec: {containers: [{name: c, image: i}]}}\n';
    const r = await run(['inject', '-f', '-'], rl);
    assert.equal(r.code, 6);
    const out = readManifest(r.out, 'out')[0].value as any;
    assert.equal(out.items[0].spec.containers.length, 1);
    assert.equal(out.results[0].severity, 'error');
    assert.match(r.err, /SI_INJECT_TEMPLATE_MISSING/);
  });

  it('--help says injected documents keep their comments (help-claims.test.ts checks it) and describes KRM mode', async () => {
    const r = await run(['inject', '--help']);
    assert.equal(r.code, 0);
    assert.match(r.out, /keeps its text, quoting and comments/);
    assert.match(r.out, /KRM function mode/);
  });
});

describe('sidecar-injector uninject', () => {
  it('gives back the input', async () => {
    const input = `${SVC}---\n${WEB}`;
    const injected = await run(['inject', '-f', '-'], input);
    const back = await run(['uninject', '-f', '-'], injected.out);
    assert.equal(back.code, 0, back.err);
    assert.equal(back.err, '', 'the Service is not a workload: no note');
    assert.deepEqual(
      readManifest(back.out, 'b').map((d) => d.value),
      readManifest(input, 'i').map((d) => d.value),
    );
    assert.equal(readManifest(back.out, 'b')[0].text, SVC);
  });

  it('reports templates with nothing to remove unless --quiet', async () => {
    const r = await run(['uninject', '-f', '-'], WEB);
    assert.equal(r.out, WEB);
    assert.match(r.err, /^not injected Deployment "shop\/web" \(document 1\): /);
    assert.equal((await run(['uninject', '-f', '-', '-q'], WEB)).err, '');
  });
});

describe('sidecar-injector explain', () => {
  it('prints a verdict per template and exits 0 even when nothing is injected', async () => {
    const r = await run(['explain', '-f', '-', '--namespace-labels', ''], `${WEB}---\n${HOST}`);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^Deployment "shop\/web" \(document 1\): NOT INJECTED \(object-not-selected\)/m);
    assert.match(r.out, /^DaemonSet "ns\/agent" \(document 2\): NOT INJECTED \(object-not-selected\)/m);
    const labelled = await run(['explain', '-f', '-', '--namespace-labels', 'istio-injection=enabled'], HOST);
    assert.match(labelled.out, /^DaemonSet "ns\/agent" \(document 1\): NOT INJECTED \(host-network\)/m);
  });

  it('-o json gives the entries', async () => {
    const r = await run(['explain', '-f', '-', '-o', 'json', '--namespace-labels', 'istio-injection=enabled'], WEB);
    const [e] = JSON.parse(r.out) as any[];
    assert.equal(e.injected, true);
    assert.equal(e.document, 1);
    assert.deepEqual(e.namespaceLabels, { 'istio-injection': 'enabled' });
  });

  it('rejects a bad --namespace-labels and a bad -o', async () => {
    assert.equal((await run(['explain', '-f', '-', '--namespace-labels', 'novalue'], WEB)).code, 2);
    assert.equal((await run(['explain', '-f', '-', '-o', 'xml'], WEB)).code, 2);
  });

  it('parseLabels', () => {
    assert.deepEqual(parseLabels('a=b, c=d,e='), { a: 'b', c: 'd', e: '' });
    assert.deepEqual(parseLabels(''), {});
    assert.throws(() => parseLabels('=x'));
  });
});
