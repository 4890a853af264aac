import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../errors.js';
import { decisionConfig } from '../../test/support/decision-config.js';
import { buildConfig, type ConfigTexts } from './build-config.js';

/** Configs without templates: the decision layer and validation need no template engine. */
function build(texts: Partial<ConfigTexts> & { config: string }, invalidSelectors?: 'error' | 'skip') {
  return buildConfig(
    { configFile: 'cfg.yaml', ...texts },
    { kind: 'text', files: [] },
    {
      invalidSelectors,
      compile: () => () => {
        throw new Error('no templates in these tests');
      },
    },
  );
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err;
  }
  assert.fail('expected a ConfigError');
}

describe('config: Istio layout and defaults', () => {
  it('reads the keys of an Istio ConfigMap, ignoring the legacy template key', () => {
    const cfg = build({
      config: [
        'policy: disabled',
        'alwaysInjectSelector:',
        '  []',
        'neverInjectSelector:',
        '  - matchExpressions:',
        '    - {key: openshift.io/build.name, operator: Exists}',
        'injectedAnnotations:',
        'template: "{{ Template_Version_And_Istio_Version_Mismatched_Check_Installation }}"',
      ].join('\n'),
      values: '{"global": {"hub": "docker.io/istio", "proxy": {"statusPort": 15020}}, "revision": ""}',
    });
    assert.equal(cfg.policy, 'disabled');
    assert.deepEqual(cfg.alwaysInjectSelector, []);
    assert.equal(cfg.compiledSelectors.never[0].text, 'openshift.io/build.name');
    assert.deepEqual({ ...cfg.injectedAnnotations }, {});
    assert.deepEqual(cfg.values, { global: { hub: 'docker.io/istio', proxy: { statusPort: 15020 } }, revision: '' });
    assert.deepEqual(cfg.defaultTemplates, []);
    assert.ok(
      cfg.warnings.some((w) => /legacy "template" key is ignored/.test(w)),
      cfg.warnings.join('|'),
    );
  });

  it('fills our defaults: Istio keys, Istio ignored namespaces, env off, policy enabled', () => {
    const cfg = build({ config: 'neverInjectSelector: []' });
    assert.equal(cfg.policy, 'enabled');
    assert.deepEqual(
      { ...cfg.injectionKeys },
      {
        inject: 'sidecar.istio.io/inject',
        status: 'sidecar.istio.io/status',
        templates: 'inject.istio.io/templates',
        namespaceLabel: 'istio-injection',
        revisionLabel: 'istio.io/rev',
      },
    );
    assert.deepEqual([...cfg.ignoredNamespaces], ['kube-system', 'kube-public', 'kube-node-lease', 'local-path-storage']);
    assert.equal(cfg.templateOptions.allowEnv, false);
    assert.equal(cfg.nativeSidecars, false);
    assert.equal(cfg.source.kind, 'text');
  });

  it('renames keys partially and adds ignored namespaces', () => {
    const cfg = build({ config: 'injectionKeys: {inject: mesh.example.com/inject}\nignoredNamespaces: [mesh-system, kube-system]' });
    assert.equal(cfg.injectionKeys.inject, 'mesh.example.com/inject');
    assert.equal(cfg.injectionKeys.status, 'sidecar.istio.io/status');
    assert.deepEqual([...cfg.ignoredNamespaces], ['kube-system', 'kube-public', 'kube-node-lease', 'local-path-storage', 'mesh-system']);
  });

  it('reads a ConfigMap manifest, and the values key of a single file (map or JSON string)', () => {
    const cm = build({ config: 'apiVersion: v1\nkind: ConfigMap\ndata:\n  config: "policy: disabled"\n  values: \'{"a": 1}\'\n' });
    assert.equal(cm.policy, 'disabled');
    assert.deepEqual(cm.values, { a: 1 });
    assert.deepEqual(build({ config: 'policy: enabled\nvalues:\n  a: 1\n' }).values, { a: 1 });
    assert.deepEqual(build({ config: 'values: \'{"a": 1}\'' }).values, { a: 1 });
  });

  it('hashes content, not layout: the same config as directory, single file or ConfigMap hashes equal', () => {
    const a = build({ config: 'policy: enabled\nneverInjectSelector: [{matchLabels: {a: b}}]', values: '{"x": {"p": 1, "z": [1, 2]}}' });
    const b = build({ config: 'neverInjectSelector:\n- matchLabels:\n    a: b\nvalues:\n  x: {z: [1, 2], p: 1}\n' });
    const c = build({
      config:
        'kind: ConfigMap\ndata:\n  config: |\n    policy: enabled\n    neverInjectSelector: [{matchLabels: {a: b}}]\n  values: |\n    {"x": {"p": 1, "z": [1,2]}}\n',
    });
    assert.match(a.hash, /^[0-9a-f]{64}$/);
    assert.equal(a.hash, b.hash);
    assert.equal(a.hash, c.hash);
    assert.notEqual(a.hash, build({ config: 'policy: enabled', values: '{"x": {"p": 2}}' }).hash);
  });

  it('freezes the loaded config (it is shared by all requests)', () => {
    const cfg = build({ config: 'policy: enabled', values: '{"a": {"b": [1]}}' });
    assert.ok(Object.isFrozen(cfg) && Object.isFrozen(cfg.values) && Object.isFrozen((cfg.values.a as { b: unknown[] }).b));
    assert.throws(() => {
      (cfg as { policy: string }).policy = 'disabled';
    }, TypeError);
  });

  it('reads YAML as Kubernetes does: 1.1 booleans (even as keys) and octal, timestamps stay strings', () => {
    const cfg = build({ config: 'policy: enabled', values: 'a: yes\nb: 0777\nc: 2024-01-01\nd: 1:20\ny: 1\n' });
    assert.deepEqual(cfg.values, { a: true, b: 511, c: '2024-01-01', d: '1:20', true: 1 });
  });

  it('keeps __proto__ keys as plain data', () => {
    const cfg = build({ config: 'policy: enabled', values: '{"__proto__": {"polluted": true}}' });
    const yamlCfg = build({ config: 'policy: enabled', values: '__proto__: {polluted: true}\n' });
    assert.ok(Object.hasOwn(yamlCfg.values, '__proto__'));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.ok(Object.hasOwn(cfg.values, '__proto__'));
  });
});

describe('config: validation errors name the file, line and key path', () => {
  it('rejects unknown keys with a suggestion', () => {
    const err = configError(() => build({ config: 'policy: enabled\nneverInjectSelectors: []\n' }));
    assert.equal(err.code, 'SI_CONFIG_INVALID');
    assert.match(err.message, /^cfg\.yaml:2: neverInjectSelectors: unknown key "neverInjectSelectors" \(did you mean "neverInjectSelector"\?\)/);
    assert.match(
      configError(() => build({ config: 'injectionKeys: {injct: x}' })).message,
      /injectionKeys\.injct: unknown key "injct" \(did you mean "inject"\?\)/,
    );
    assert.match(configError(() => build({ config: 'templateOptions: {allowenv: true}' })).message, /did you mean "allowEnv"/);
  });

  it('reports every problem at once, each with its line', () => {
    const err = configError(() =>
      build({
        config: [
          'policy: enabled',
          'defaultTemplates: [sidecar]',
          'neverInjectSelector:',
          '- matchLabels: {a: b}',
          '- matchExpressions:',
          '  - {key: a, operator: Exist}',
          'injectedAnnotations: {a: 1}',
        ].join('\n'),
      }),
    );
    assert.match(err.message, /3 problems/);
    assert.match(err.message, /cfg\.yaml:2: defaultTemplates\[0\]: no template or alias named "sidecar"/);
    assert.match(
      err.message,
      /cfg\.yaml:6: neverInjectSelector\[1\]\.matchExpressions\[0\]\.operator: "Exist" is not a valid operator \(did you mean "Exists"\?\)/,
    );
    assert.match(err.message, /cfg\.yaml:7: injectedAnnotations\.a: the annotation value must be a string, got a number \(1\); quote/);
    const issues = (err.details as { issues: { path: string; line: number }[] }).issues;
    assert.deepEqual(
      issues.map((i) => i.line),
      [2, 6, 7],
    );
  });

  it('skips invalid selectors with a warning in Istio mode', () => {
    const cfg = build({ config: 'alwaysInjectSelector:\n- matchExpressions: [{key: a, operator: In, values: []}]\n- {}\n' }, 'skip');
    assert.equal(cfg.compiledSelectors.always[0].state, 'invalid');
    assert.ok(
      cfg.warnings.some((w) =>
        /alwaysInjectSelector\[0\]\.matchExpressions\[0\]\.values: operator In needs at least one value; this selector is skipped/.test(w),
      ),
      cfg.warnings.join('|'),
    );
    assert.ok(cfg.warnings.some((w) => /alwaysInjectSelector\[1\]: empty selector is ignored/.test(w)));
  });

  it('refuses a policy other than enabled or disabled, naming the near one', () => {
    assert.match(
      configError(() => build({ config: 'policy: Enabled' })).message,
      /cfg\.yaml:1: policy: must be "enabled" or "disabled", got "Enabled" \(did you mean "enabled"\?\)/,
    );
    assert.match(
      configError(() => build({ config: 'policy: on' })).message,
      /policy: must be "enabled" or "disabled", got a boolean \(true\); quote the value/,
    );
  });

  it('checks aliases and template references', () => {
    const err = configError(() => build({ config: 'aliases: {a: [missing], b: [a]}\ndefaultTemplates: [b, nope]' }));
    assert.match(err.message, /aliases\.a\[0\]: no template named "missing"/);
    assert.match(err.message, /aliases\.b\[0\]: "a" is an alias; aliases expand one level only/);
    assert.match(err.message, /defaultTemplates\[1\]: no template or alias named "nope"/);
  });

  it('checks renamed keys and injected annotation keys', () => {
    assert.match(configError(() => build({ config: 'injectionKeys: {inject: "Bad Key"}' })).message, /injectionKeys\.inject: invalid key/);
    assert.match(
      configError(() => build({ config: 'injectionKeys: {status: sidecar.istio.io/inject}' })).message,
      /injectionKeys\.status: must differ from injectionKeys\.inject/,
    );
    assert.match(configError(() => build({ config: 'injectedAnnotations: {"a/b/c": x}' })).message, /injectedAnnotations\["a\/b\/c"\]: invalid annotation key/);
    assert.match(
      configError(() => build({ config: 'ignoredNamespaces: [Kube_System]' })).message,
      /ignoredNamespaces\[0\]: namespace "Kube_System" must be lowercase/,
    );
  });

  it('rejects bad YAML, empty or non-map configs and bad values', () => {
    assert.match(configError(() => build({ config: 'policy: [enabled' })).message, /^cfg\.yaml:1: the config is not valid YAML/);
    assert.match(configError(() => build({ config: 'a: 1\na: 2' })).message, /cfg\.yaml:2: .*Map keys must be unique/);
    assert.match(configError(() => build({ config: '' })).message, /the config is empty/);
    assert.match(configError(() => build({ config: '- a' })).message, /must be a map of keys/);
    assert.match(configError(() => build({ config: 'policy: enabled', values: '', valuesFile: 'vals' })).message, /^vals: the values document is empty/);
    assert.match(configError(() => build({ config: 'policy: enabled', values: '[1]', valuesFile: 'vals' })).message, /^vals:1: values must be a map/);
    assert.match(
      configError(() => build({ config: 'policy: enabled', values: 'a:\n  b: .inf\n', valuesFile: 'vals' })).message,
      /^vals:2: a\.b: Infinity is not a JSON number/,
    );
    assert.match(configError(() => build({ config: 'values: {a: 1}', values: '{}', valuesFile: 'vals' })).message, /values are given twice/);
  });

  it('caps YAML aliases (billion laughs)', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
    ].join('\n');
    assert.match(configError(() => build({ config: 'policy: enabled', values: bomb, valuesFile: 'vals' })).message, /vals: .*(alias|resource exhaustion)/i);
  });

  it('decisionConfig helper goes through the same validation', () => {
    assert.throws(() => decisionConfig({ policy: 'enabled', bogus: 1 }), ConfigError);
  });
});
