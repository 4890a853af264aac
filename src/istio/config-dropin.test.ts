/**
 * `--config` takes Istio's config as a user has it (issue 12): `kubectl get configmap -o yaml`
 * output, a `List`, a multi-document file (picked with FILE#NAME), a mounted directory; Istio
 * mode is detected and explained; the chart's own template is refused with what to run.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { ConfigError } from '../errors.js';
import { istioPostProcessingEnabled } from './postprocess.js';
import { ISTIO_CHART_DIR, istioChartConfigMap, istioChartPresent, istioChartValues } from '../../test/support/istio-chart.js';
import { detectCompatibility, istioNativeSidecars } from '../config/compat.js';
import { loadConfig, parseConfig } from '../profiles/index.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'si-dropin-'));
});
after(() => rm(dir, { recursive: true, force: true }));

async function rejects(p: Promise<unknown>, re: RegExp) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof ConfigError, String(err));
    assert.equal(err.code, 'SI_CONFIG_INVALID');
    assert.match(err.message, re);
    return true;
  });
}

const SMALL_CM = (name: string, config = 'policy: enabled\ntemplates:\n  sidecar: |\n    metadata:\n      labels:\n        a: b\n') =>
  stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'istio-system' }, data: { config, values: '{}' } }, { blockQuote: 'literal' });

describe('compatibility detection', () => {
  it('explicit key first, then the ConfigMap name, then values.global.proxy', () => {
    assert.equal(detectCompatibility({ explicit: 'none', configMapName: 'istio-sidecar-injector', values: { global: { proxy: {} } } }).mode, 'none');
    const byName = detectCompatibility({ configMapName: 'istio-sidecar-injector-canary', values: {} });
    assert.deepEqual([byName.mode, byName.source], ['istio', 'detected']);
    assert.match(byName.reason, /istio-sidecar-injector-canary/);
    assert.equal(detectCompatibility({ configMapName: 'my-injector', values: {} }).mode, 'none');
    assert.match(detectCompatibility({ values: { global: { proxy: { image: 'x' } } } }).reason, /global\.proxy/);
    assert.equal(detectCompatibility({ values: { global: { proxy: 'x' } } }).mode, 'none');
  });

  it('native sidecars from values.pilot.env.ENABLE_NATIVE_SIDECARS as istiod reads it', () => {
    assert.equal(istioNativeSidecars({}).value, true);
    assert.equal(istioNativeSidecars({ pilot: { env: { ENABLE_NATIVE_SIDECARS: 'false' } } }).value, false);
    assert.equal(istioNativeSidecars({ pilot: { env: { ENABLE_NATIVE_SIDECARS: false } } }).value, false);
    assert.equal(istioNativeSidecars({ pilot: { env: { ENABLE_NATIVE_SIDECARS: 'auto' } } }).value, true);
  });

  it('Istio-shaped values switch Istio mode on; compatibility: none and the explicit keys still win', () => {
    const values = JSON.stringify({ global: { proxy: { image: 'proxyv2' } } });
    const auto = parseConfig('policy: enabled', values);
    assert.equal(auto.compatibility.mode, 'istio');
    assert.equal(istioPostProcessingEnabled(auto), true);
    assert.equal(auto.nativeSidecars, true);
    const none = parseConfig('policy: enabled\ncompatibility: none', values);
    assert.equal(istioPostProcessingEnabled(none), false);
    assert.equal(none.nativeSidecars, false);
    const keys = parseConfig('policy: enabled\nnativeSidecars: false', JSON.stringify({ global: { proxy: {} }, istioPostProcessing: false }));
    assert.deepEqual([keys.compatibility.mode, keys.nativeSidecars, istioPostProcessingEnabled(keys)], ['istio', false, false]);
    const old = parseConfig('policy: enabled\nnativeSidecars: true', JSON.stringify({ istioPostProcessing: true }));
    assert.deepEqual([old.compatibility.mode, old.nativeSidecars, istioPostProcessingEnabled(old)], ['none', true, true]);
    assert.throws(() => parseConfig('compatibility: Istio'), /compatibility: must be "istio" or "none".*did you mean "istio"/);
  });

  it("the built-in config is ours, not Istio's", async () => {
    const { defaultConfig } = await import('../profiles/index.js');
    assert.deepEqual([defaultConfig().compatibility.mode, defaultConfig().compatibility.source], ['none', 'explicit']);
  });
});

describe('--config with what an Istio user has', { skip: istioChartPresent() ? false : 'Istio chart not found' }, () => {
  it('kubectl get configmap istio-sidecar-injector -o yaml', async () => {
    const file = join(dir, 'cm.yaml');
    await writeFile(file, istioChartConfigMap());
    const c = await loadConfig(file);
    assert.equal(c.compatibility.mode, 'istio');
    assert.match(c.compatibility.reason, /Istio's ConfigMap "istio-sidecar-injector"/);
  });

  it('a directory mounted from that ConfigMap', async () => {
    const { parse } = await import('yaml');
    const cm = parse(istioChartConfigMap()) as { data: { config: string; values: string } };
    const mounted = join(dir, 'mounted');
    await mkdir(mounted);
    await writeFile(join(mounted, 'config'), cm.data.config);
    await writeFile(join(mounted, 'values'), cm.data.values);
    const c = await loadConfig(mounted);
    assert.equal(c.compatibility.mode, 'istio');
    assert.match(c.compatibility.reason, /global\.proxy/);
  });

  it('a List (kubectl get configmaps -o yaml) with the mesh ConfigMap beside it', async () => {
    const { parse } = await import('yaml');
    const injector = parse(istioChartConfigMap()) as { data: { values: string } };
    const values = JSON.parse(injector.data.values) as Record<string, unknown>;
    delete values.meshConfig;
    injector.data.values = JSON.stringify(values);
    const mesh = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'istio', namespace: 'istio-system' },
      data: { mesh: 'defaultConfig:\n  statusPort: 15999\n' },
    };
    const list = { apiVersion: 'v1', kind: 'List', items: [mesh, injector, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'istiod' } }] };
    const file = join(dir, 'list.yaml');
    await writeFile(file, stringify(list, { blockQuote: 'literal' }));
    const c = await loadConfig(file);
    assert.equal(c.compatibility.mode, 'istio');
    assert.deepEqual(c.values.meshConfig, { defaultConfig: { statusPort: 15999 } });
  });

  it('the Helm chart template itself: render it first', async () => {
    const file = join(dir, 'helm.yaml');
    await writeFile(file, await readFile(`${ISTIO_CHART_DIR}istiod-injector-configmap.yaml`, 'utf8'));
    await rejects(loadConfig(file), /this is a Helm template, render it first \(helm template /);
    // A template whose first line is plain YAML still has {{ .Release... }} in values.
    await writeFile(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: {{ .Release.Namespace | quote }}\n');
    await rejects(loadConfig(file), /this is a Helm template/);
    assert.ok(istioChartValues().global !== undefined);
  });
});

describe('--config with a multi-document file', () => {
  it('picks the only injector ConfigMap, keeps line numbers, and lists what it found otherwise', async () => {
    const file = join(dir, 'multi.yaml');
    await writeFile(file, `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: istio-system\n---\n${SMALL_CM('istio-sidecar-injector')}`);
    const c = await loadConfig(file);
    assert.equal(c.compatibility.mode, 'istio');
    assert.deepEqual(Object.keys(c.templates), ['sidecar']);

    const bad = SMALL_CM('istio-sidecar-injector', 'policy: enabled\ntemplates:\n  sidecar: |\n    {{ .Values.x\n');
    await writeFile(file, `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: istio-system\n---\n${bad}`);
    await assert.rejects(loadConfig(file), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      // Lines inside data.config count from its first line, as for a single ConfigMap file.
      assert.match(err.message, /multi\.yaml#istio-sidecar-injector \(data\.config\):5: templates\.sidecar: template: sidecar:2: unclosed action/);
      return true;
    });

    await writeFile(file, `${SMALL_CM('istio-sidecar-injector')}---\n${SMALL_CM('istio-sidecar-injector-canary')}`);
    await rejects(
      loadConfig(file),
      /holds 2 injector ConfigMaps: ConfigMap\/istio-system\/istio-sidecar-injector, ConfigMap\/istio-system\/istio-sidecar-injector-canary; pick one with --config '.*multi\.yaml#NAME'/,
    );
    const canary = await loadConfig(`${file}#istio-sidecar-injector-canary`);
    assert.match(canary.compatibility.reason, /canary/);
    await rejects(loadConfig(`${file}#nope`), /no ConfigMap named "nope"; found ConfigMap\/istio-system\/istio-sidecar-injector, /);

    await writeFile(file, 'apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: b\n');
    await rejects(loadConfig(file), /holds 2 objects and no injector config .*found Service\/a, Service\/b/);
  });
});
