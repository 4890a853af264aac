/**
 * @module cli/config-gate.test
 * Issue 27, items 1 and 5: the commands that inject offline (inject, policy, template render
 * --config) run serve's validity gate, so a config that serve and config check refuse never
 * exits 0 with a broken sidecar; a config that breaks only some pods warns naming them; an
 * injected pod that the sidecar made invalid fails naming the workload. Config directories are
 * read in the layouts users have, and a config with no values says "no values given".
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { memoryIO } from '../../test/support/memory-io.js';
import { runCli } from './command-tree.js';

const dir = mkdtempSync(join(tmpdir(), 'si-gate-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
  return p;
};
const repo = (p: string) => new URL(`../../${p}`, import.meta.url).pathname;

async function run(argv: string[]) {
  const io = memoryIO();
  return { code: await runCli(argv, io), out: io.out, err: io.err };
}

const APP = file(
  'app.yaml',
  'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  template:\n    metadata:\n      annotations: {side-cpu: lots}\n    spec:\n      containers: [{name: web, image: nginx}]\n',
);
const TYPO = file(
  'typo.yaml',
  'templates:\n  s: |\n    spec:\n      containers:\n      - name: side\n        image: {{ .Values.imag }}\ndefaultTemplates: [s]\nvalues:\n  image: busybox\n',
);

describe('the validity gate of serve, offline', () => {
  for (const argv of [['inject', '-f', APP], ['policy'], ['template', 'render', '-f', APP]]) {
    it(`${argv.slice(0, 2).join(' ')}: a .Values typo that leaves the sidecar without an image is exit 4, as config check`, async () => {
      const r = await run([...argv, '-c', TYPO]);
      assert.equal(r.code, 4, r.err);
      assert.equal(r.out, '');
      assert.match(
        r.err,
        /^Error \[SI_CONFIG_INVALID\]: the config's default sidecar \(s\) gives a pod the API server would refuse for every representative pod.*spec\.containers\[name=side\]\.image: the template printed "<no value>"/,
      );
    });
  }

  it('a config that breaks only pods with init containers warns, naming that pod, and injects', async () => {
    const cfg = file(
      'init.yaml',
      'templates:\n  s: |\n    spec:\n      containers:\n      - name: side\n        image: busybox\n        {{- if .Spec.InitContainers }}\n        ports: [{containerPort: 99999}]\n        {{- end }}\ndefaultTemplates: [s]\n',
    );
    const r = await run([
      'inject',
      '-f',
      file('plain.yaml', 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: a}]\n'),
      '-c',
      cfg,
    ]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /^warning: config: the default sidecar gives pod "with init containers" a pod the API server would refuse: .*containerPort/m);
    assert.match(r.out, /name: side/);
  });

  it('an injected pod the sidecar made invalid fails with exit 4 naming the workload, and nothing is written', async () => {
    const cfg = file(
      'cpu.yaml',
      'templates:\n  s: |\n    spec:\n      containers:\n      - name: side\n        image: busybox\n        resources:\n          limits: {cpu: {{ annotation .ObjectMeta "side-cpu" "100m" }}}\ndefaultTemplates: [s]\n',
    );
    const r = await run(['inject', '-f', APP, '-c', cfg]);
    assert.equal(r.code, 4, r.err);
    assert.equal(r.out, '');
    assert.match(
      r.err,
      /^Error \[SI_CONFIG_INVALID\]: .*app\.yaml: document 1, line \d+: Deployment "shop\/web": the injected pod would be refused by the API server: spec\.containers\[name=side\]\.resources\.limits\.cpu: .*lots/,
    );
  });
});

describe('config layouts', () => {
  it('a copy of defaults/ (config.yaml, values.yaml) is a config directory, as its values.yaml says', async () => {
    const d = join(dir, 'my-defaults');
    mkdirSync(d);
    copyFileSync(repo('defaults/config.yaml'), join(d, 'config.yaml'));
    copyFileSync(repo('defaults/values.yaml'), join(d, 'values.yaml'));
    const r = await run(['config', 'check', '-c', d]);
    assert.equal(r.code, 0, r.err);
  });

  it("Istio's rendered inject-config.yaml + values.json (+ mesh.yaml) is a config directory", async () => {
    const d = join(dir, 'istio');
    mkdirSync(d);
    writeFileSync(
      join(d, 'inject-config.yaml'),
      'policy: enabled\ntemplates:\n  sidecar: |\n    spec:\n      containers:\n      - name: istio-proxy\n        image: "{{ .Values.global.hub }}/proxyv2:{{ .Values.global.tag }}"\n        env: [{name: DOMAIN, value: "{{ .MeshConfig.TrustDomain }}"}]\n',
    );
    writeFileSync(join(d, 'values.json'), '{"global": {"hub": "docker.io/istio", "tag": "1.24.2"}}');
    writeFileSync(join(d, 'mesh.yaml'), 'trustDomain: example.org\n');
    const r = await run(['inject', '-f', APP, '-c', d]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /image: docker\.io\/istio\/proxyv2:1\.24\.2/);
    assert.match(r.out, /value: example\.org/);
  });

  it('two config files in one directory are refused, naming both', async () => {
    const d = join(dir, 'both');
    mkdirSync(d);
    writeFileSync(join(d, 'config'), 'policy: enabled\n');
    writeFileSync(join(d, 'config.yaml'), 'policy: enabled\n');
    const r = await run(['config', 'check', '-c', d]);
    assert.equal(r.code, 4);
    assert.match(r.err, /holds more than one config file \(config, config\.yaml\): keep one/);
  });

  it('a config with no values: "no values given" and where to put them, not a template error', async () => {
    const r = await run(['inject', '-f', APP, '-c', repo('defaults/config.yaml')]);
    assert.equal(r.code, 4);
    assert.match(
      r.err,
      /no values given: the templates read \.Values but .*defaults\/config\.yaml came with none; pass the directory that holds it and its values file/,
    );
    assert.doesNotMatch(r.err, /executing "sidecar"/);
  });
});
