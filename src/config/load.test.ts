import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rename, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError } from '../errors.js';
import { defaultConfig, loadConfig, parseConfig, TEMPLATE_ENGINE_ENV, templateEngine } from './load.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'si-config-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Lay out files the way the kubelet mounts a ConfigMap: timestamped dir, `..data` symlink, key symlinks. */
async function mountConfigMap(root: string, version: string, files: Record<string, string>) {
  await mkdir(root, { recursive: true });
  const versionDir = join(root, `..${version}`);
  await mkdir(versionDir);
  for (const [name, text] of Object.entries(files)) await writeFile(join(versionDir, name), text);
  await symlink(`..${version}`, join(root, '..data_tmp'));
  await rename(join(root, '..data_tmp'), join(root, '..data'));
  for (const name of Object.keys(files)) await symlink(join('..data', name), join(root, name)).catch(() => undefined);
}

async function rejects(p: Promise<unknown>, code: string, re: RegExp) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof ConfigError, String(err));
    assert.equal(err.code, code);
    assert.match(err.message, re);
    return true;
  });
}

const TEMPLATE = 'templates:\n  hello: |\n    metadata:\n      labels:\n        hello: {{ .Values.greeting | quote }}\n';

describe('loadConfig', () => {
  it('reads a mounted ConfigMap directory and follows its ..data symlink', async () => {
    const root = join(dir, 'cm');
    await mountConfigMap(root, '2024_01_01', { config: `policy: disabled\ndefaultTemplates: [hello]\n${TEMPLATE}`, values: '{"greeting": "hi"}' });
    const cfg = await loadConfig(root);
    assert.equal(cfg.policy, 'disabled');
    assert.deepEqual(cfg.values, { greeting: 'hi' });
    assert.ok(cfg.compiledTemplates.has('hello'));
    assert.equal(cfg.source.kind, 'directory');
    assert.deepEqual(cfg.source.files, [join(root, 'config'), join(root, 'values')]);
    // A new version swapped in with the kubelet's rename trick is picked up whole.
    await mountConfigMapSwap(root, '2024_01_02', { config: 'policy: enabled\n', values: '{"greeting": "hello"}' });
    const next = await loadConfig(root);
    assert.equal(next.policy, 'enabled');
    assert.deepEqual(next.values, { greeting: 'hello' });
    assert.notEqual(next.hash, cfg.hash);
  });

  it('accepts a plain directory; a missing values file is a warning', async () => {
    const root = join(dir, 'plain');
    await mkdir(root);
    await writeFile(join(root, 'config'), 'policy: enabled\n');
    const cfg = await loadConfig(root);
    assert.deepEqual(cfg.values, {});
    assert.ok(cfg.warnings.some((w) => /no values file/.test(w)));
  });

  it('reads a single YAML file with values, and a ConfigMap manifest', async () => {
    const single = join(dir, 'single.yaml');
    await writeFile(single, `policy: enabled\ndefaultTemplates: [hello]\n${TEMPLATE}values:\n  greeting: hey\n`);
    const cfg = await loadConfig(single);
    assert.equal(cfg.source.kind, 'file');
    assert.deepEqual(cfg.values, { greeting: 'hey' });
    const manifest = join(dir, 'cm.yaml');
    await writeFile(
      manifest,
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio-sidecar-injector}\ndata:\n  config: |\n    policy: disabled\n  values: |-\n    {"greeting": "x"}\n',
    );
    const fromCm = await loadConfig(manifest);
    assert.equal(fromCm.policy, 'disabled');
    assert.deepEqual(fromCm.values, { greeting: 'x' });
  });

  it('reports unreadable paths clearly', async () => {
    await rejects(loadConfig(join(dir, 'nope')), 'SI_CONFIG_READ', /cannot read the injector config at .*nope: no such file or directory/);
    const empty = join(dir, 'emptydir');
    await mkdir(empty);
    await rejects(loadConfig(empty), 'SI_CONFIG_READ', /is a directory without a config file; --config DIR takes a directory holding config, config.yaml/);
    const big = join(dir, 'big.yaml');
    await writeFile(big, '');
    await truncate(big, 17 * 1024 * 1024);
    await rejects(loadConfig(big), 'SI_CONFIG_READ', /over the 16777216-byte limit/);
  });

  it('reports a template that does not parse with the key, the file line and the template line', async () => {
    const file = join(dir, 'bad-template.yaml');
    const text = [
      'policy: enabled',
      'templates:',
      '  ok: |',
      '    metadata: {}',
      '  broken: |',
      '    metadata:',
      '      labels:',
      '        a: {{ .Values.x | nosuchfunc }}',
      '',
    ].join('\n');
    await writeFile(file, text);
    await rejects(
      loadConfig(file),
      'SI_CONFIG_INVALID',
      new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:8: templates\\.broken: template: broken:3: function "nosuchfunc" not defined`),
    );
  });

  it('lets templates read the environment only when templateOptions.allowEnv is true', () => {
    const config = 'templates:\n  t: |\n    x: {{ env "SI_TEST_ENV" "unset" }}\n';
    process.env.SI_TEST_ENV = 'from-env';
    const off = parseConfig(config).compiledTemplates.get('t');
    assert.ok(off, 'a template using env still loads');
    assert.throws(() => off.execute({}), /env is disabled/);
    const on = parseConfig(`templateOptions: {allowEnv: true}\n${config}`).compiledTemplates.get('t');
    assert.equal(on?.execute({}).trim(), 'x: from-env');
  });
});

describe('parseConfig with templates', () => {
  it('replaces an empty defaultTemplates with [sidecar], as Istio does', () => {
    assert.deepEqual([...parseConfig('defaultTemplates: []\ntemplates:\n  sidecar: "a: 1"\n').defaultTemplates], ['sidecar']);
    const none = parseConfig('defaultTemplates: []\ntemplates:\n  other: "a: 1"\n');
    assert.deepEqual([...none.defaultTemplates], []);
    assert.ok(none.warnings.some((w) => /defaultTemplates: empty and there is no "sidecar" template/.test(w)));
  });

  it('checks alias targets and warns when an alias hides a template', () => {
    const cfg = parseConfig('templates:\n  a: "x: 1"\n  b: "y: 2"\naliases:\n  both: [a, b]\n  a: [b]\ndefaultTemplates: [both]\n');
    assert.deepEqual({ ...cfg.aliases }, { both: ['a', 'b'], a: ['b'] });
    assert.ok(
      cfg.warnings.some((w) => /aliases\.a: alias "a" hides the template of the same name/.test(w)),
      cfg.warnings.join('|'),
    );
    assert.throws(
      () => parseConfig('templates:\n  sidecar: "x: 1"\naliases:\n  p: [sidecr]\n'),
      /config:4: aliases\.p\[0\]: no template named "sidecr" \(did you mean "sidecar"\?\)/,
    );
  });

  it('rejects template names the templates annotation could never select', () => {
    assert.throws(() => parseConfig('templates:\n  "a,b": "x: 1"\n'), /templates\["a,b"\]: template name "a,b" contains ","/);
  });
});

describe('defaultConfig', () => {
  it('loads the built-in config: Istio keys, sidecar template compiled, values present', () => {
    const cfg = defaultConfig();
    assert.equal(cfg, defaultConfig(), 'cached');
    assert.equal(cfg.source.kind, 'builtin');
    assert.equal(cfg.policy, 'enabled');
    assert.deepEqual([...cfg.defaultTemplates], ['sidecar']);
    assert.ok(cfg.compiledTemplates.has('sidecar'));
    assert.equal(cfg.injectionKeys.inject, 'sidecar.istio.io/inject');
    assert.deepEqual(cfg.warnings, []);
    const proxy = (cfg.values.global as { proxy: { uid: number; statusPort: number } }).proxy;
    assert.equal(proxy.uid, 1337);
    assert.equal(proxy.statusPort, 15021);
  });
});

async function mountConfigMapSwap(root: string, version: string, files: Record<string, string>) {
  const versionDir = join(root, `..${version}`);
  await mkdir(versionDir);
  for (const [name, text] of Object.entries(files)) await writeFile(join(versionDir, name), text);
  await symlink(`..${version}`, join(root, '..data_tmp'));
  await rename(join(root, '..data_tmp'), join(root, '..data'));
}

describe('template engine', () => {
  it('config load compiles every template; SIDECAR_INJECTOR_TEMPLATE_ENGINE=interpreter selects the reference', () => {
    assert.equal(templateEngine({}), 'compiled');
    assert.equal(templateEngine({ [TEMPLATE_ENGINE_ENV]: 'compiled' }), 'compiled');
    assert.equal(templateEngine({ [TEMPLATE_ENGINE_ENV]: 'interpreter' }), 'interpreter');
    assert.throws(
      () => templateEngine({ [TEMPLATE_ENGINE_ENV]: 'fast' }),
      (e: unknown) => e instanceof ConfigError && e.code === 'SI_CONFIG_INVALID' && /compiled \(the default\) or interpreter/.test(e.message),
    );
    const config = 'policy: enabled\ntemplates:\n  t: "{{ .Values.x }}"\n';
    const compiled = parseConfig(config, 'x: 1');
    assert.equal(compiled.compiledTemplates.get('t')?.engine, 'compiled');
    for (const t of defaultConfig().compiledTemplates.values()) assert.equal(t.engine, 'compiled');
    const saved = process.env[TEMPLATE_ENGINE_ENV];
    process.env[TEMPLATE_ENGINE_ENV] = 'interpreter';
    try {
      const reference = parseConfig(config, 'x: 1');
      assert.equal(reference.compiledTemplates.get('t')?.engine, 'interpreter');
      assert.equal(reference.compiledTemplates.get('t')?.execute({ Values: { x: 1 } }), compiled.compiledTemplates.get('t')?.execute({ Values: { x: 1 } }));
    } finally {
      if (saved === undefined) delete process.env[TEMPLATE_ENGINE_ENV];
      else process.env[TEMPLATE_ENGINE_ENV] = saved;
    }
  });
});
