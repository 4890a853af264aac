/**
 * The template data seen through the real engine: what Istio's templates rely on (Go field
 * names, zero values, proto enums printing their names, nil-safe getters, wrapper GetValue,
 * protoToJSON printing only non-defaults, typed struct JSON) must render as Go renders it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultConfig } from '../profiles/index.js';
import type { LoadedConfig } from '../config/types.js';
import { templateFuncs } from '../template/funcs/index.js';
import { parseTemplate } from '../template/index.js';
import { defaultConfigWith, templatesConfig } from '../../test/support/inject-fixtures.js';
import type { JsonObject } from '../util/json.js';
import { templateData, templatesMayMutate } from '../inject/data.js';
import { injectPod } from '../inject/index.js';
import type { Pod } from '../inject/pod-types.js';
import { proxyImage } from './template-data.js';

/** The template data exactly as the pipeline builds it: the core's fields and the config's profiles' hooks. */
function render(
  text: string,
  pod: JsonObject,
  config: LoadedConfig = defaultConfig(),
  options: { namespace?: string; owner?: { kind: string; name: string; apiVersion?: string } } = {},
): string {
  const typed = pod as unknown as Pod;
  const annotations = typed.metadata?.annotations ?? {};
  const input = { pod: typed, annotations, namespace: options.namespace ?? 'shop', owner: options.owner, pathParams: {} };
  const hooks = config.profiles.map((p) => p.forPod!(input));
  return parseTemplate('t', text, { funcs: templateFuncs() }).execute(templateData(config, hooks));
}

const POD: JsonObject = {
  metadata: { name: 'web-1', labels: { app: 'web' }, annotations: { team: 'a' } },
  spec: {
    containers: [
      { name: 'web', image: 'web:1', ports: [{ containerPort: 8080, name: 'http', protocol: 'TCP' }] },
      { name: 'log', image: 'log:1' },
    ],
  },
};

describe('template data', () => {
  it('pod parts have Go field names and zero values', () => {
    assert.equal(render('{{ range .Spec.Containers }}{{ .Name }}={{ .Image }};{{ end }}', POD), 'web=web:1;log=log:1;');
    assert.equal(render('[{{ .Spec.ServiceAccountName }}][{{ .Spec.HostNetwork }}][{{ index .ObjectMeta.Labels "missing" }}]', POD), '[][false][]');
    assert.equal(render('{{ .ObjectMeta.Namespace }}', POD, defaultConfig(), { namespace: 'from-request' }), 'from-request');
    assert.equal(render('{{ (index .Spec.Containers 0).Ports }}', POD), '[{http 0 8080 TCP }]');
    assert.throws(() => render('{{ .Spec.Nope }}', POD), /can't evaluate field Nope in type v1.PodSpec/);
  });

  it('structToJSON of a container port is Go-ordered JSON', () => {
    const pod: JsonObject = { spec: { containers: [{ name: 'a', ports: [{ protocol: 'TCP', containerPort: 80, name: 'http' }] }] } };
    assert.equal(
      render('{{ range (index .Spec.Containers 0).Ports }}{{ structToJSON . }}{{ end }}', pod),
      '{"name":"http","containerPort":80,"protocol":"TCP"}',
    );
  });

  it('annotation and isset read the pod annotations', () => {
    assert.equal(
      render('{{ annotation .ObjectMeta "team" "none" }}/{{ annotation .ObjectMeta "x" "none" }}/{{ isset .ObjectMeta.Annotations "team" }}', POD),
      'a/none/true',
    );
  });

  it('ProxyConfig: enums print their names, wrappers answer GetValue, nil messages answer getters', () => {
    assert.equal(render('{{ .ProxyConfig.InterceptionMode }} {{ .ProxyConfig.InterceptionMode.String }}', POD), 'REDIRECT REDIRECT');
    assert.equal(render('{{ annotation .ObjectMeta "sidecar.istio.io/interceptionMode" .ProxyConfig.InterceptionMode }}', POD), 'REDIRECT');
    assert.equal(render('{{ .ProxyConfig.HoldApplicationUntilProxyStarts.GetValue }}', POD), 'false');
    assert.equal(render('[{{ .ProxyConfig.GetTracing.GetTlsSettings.GetCaCertificates }}]', POD), '[]');
    assert.equal(
      render('{{ .ProxyConfig.StatusPort }} {{ .ProxyConfig.Concurrency.GetValue }} {{ formatDuration .ProxyConfig.DrainDuration }}', POD),
      '15020 0 45s',
    );
    const annotated: JsonObject = {
      metadata: { annotations: { 'proxy.istio.io/config': 'holdApplicationUntilProxyStarts: true\ninterceptionMode: TPROXY\ndrainDuration: 23s' } },
      spec: { containers: [] },
    };
    assert.equal(
      render(
        '{{ .ProxyConfig.HoldApplicationUntilProxyStarts.GetValue }} {{ .ProxyConfig.InterceptionMode }} {{ formatDuration .ProxyConfig.DrainDuration }}',
        annotated,
      ),
      'true TPROXY 23s',
    );
  });

  it("protoToJSON prints only what differs from Istio's defaults, in proto field order", () => {
    assert.equal(render('{{ protoToJSON .ProxyConfig }}', POD), '{}');
    const annotated: JsonObject = {
      metadata: {
        annotations: {
          'proxy.istio.io/config': '{"proxyMetadata": {"B": "2", "A": "1"}, "concurrency": 0, "discoveryAddress": "foo:123", "statusPort": 15020}',
        },
      },
      spec: { containers: [] },
    };
    assert.equal(render('{{ protoToJSON .ProxyConfig }}', annotated), '{"discoveryAddress":"foo:123","concurrency":0,"proxyMetadata":{"A":"1","B":"2"}}');
  });

  it('a template cannot change the mesh config later pods see (set on a nested message is an error)', () => {
    for (const t of [
      '{{ $p := index .MeshConfig.ExtensionProviders 0 }}{{ $_ := set $p "name" "changed" }}',
      '{{ $_ := set .MeshConfig.OutboundTrafficPolicy "mode" "REGISTRY_ONLY" }}',
      '{{ $p := index .MeshConfig.ExtensionProviders 2 }}{{ $_ := unset $p "envoyFileAccessLog" }}',
      '{{ $_ := merge .MeshConfig.OutboundTrafficPolicy (dict "mode" "REGISTRY_ONLY") }}',
    ]) {
      assert.throws(() => render(t, POD), /read-only configuration data shared by every pod/);
    }
    assert.equal(
      render('{{ (index .MeshConfig.ExtensionProviders 0).name }} {{ .MeshConfig.OutboundTrafficPolicy.mode }} {{ .ProxyConfig.StatusPort }}', POD),
      'prometheus ALLOW_ANY 15020',
    );
    assert.equal(render('{{ $c := deepCopy .MeshConfig.DefaultProviders }}{{ $_ := set $c "a" "b" }}{{ $c }}', POD), 'map[a:b]');
  });

  it('MeshConfig: Istio defaults, overridden by values.meshConfig', () => {
    assert.equal(
      render('{{ .MeshConfig.ProxyListenPort }} {{ .MeshConfig.ProxyInboundListenPort }} {{ .MeshConfig.TrustDomain }} {{ .InboundTrafficPolicyMode }}', POD),
      '15001 15006 cluster.local passthrough',
    );
    const config = defaultConfigWith({
      meshConfig: { trustDomain: 'example.org', inboundTrafficPolicy: { mode: 'LOCALHOST' }, defaultConfig: { interceptionMode: 'TPROXY' } },
    });
    assert.equal(
      render('{{ .MeshConfig.TrustDomain }} {{ .InboundTrafficPolicyMode }} {{ .ProxyConfig.InterceptionMode }} {{ .ProxyConfig.StatusPort }}', POD, config),
      'example.org localhost TPROXY 15020',
    );
  });

  it('TypeMeta and DeploymentMeta come from the owner, else from the pod', () => {
    const owner = { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' };
    assert.equal(
      render('{{ .TypeMeta.Kind }} {{ .TypeMeta.APIVersion }} {{ .DeploymentMeta.Name }} {{ .DeploymentMeta.Namespace }}', POD, defaultConfig(), { owner }),
      'Deployment apps/v1 web shop',
    );
    assert.equal(render('{{ .TypeMeta.Kind }} {{ .TypeMeta.APIVersion }} {{ .DeploymentMeta.Name }}', POD), 'Pod v1 web-1');
  });

  it('Values: a template may set into it without changing the config (its own copy per pod)', () => {
    const config = templatesConfig(
      {
        t: '{{ $_ := set .Values "extra" (printf "%v-%v" .Values.extra .ObjectMeta.Name) }}metadata: {annotations: {x: {{ .Values.extra | quote }}}}\nspec: {containers: [{name: p, image: p}]}',
      },
      {},
      { extra: 'base' },
    );
    assert.equal(templatesMayMutate(config), true);
    assert.equal(templatesMayMutate(defaultConfig()), false, 'the built-in templates share the frozen values');
    for (const name of ['a', 'b']) {
      const r = injectPod({ metadata: { name }, spec: { containers: [{ name: 'app' }] } }, { namespace: 'x', mode: 'webhook' }, config);
      assert.equal(r.kind === 'injected' && (r.pod.metadata as { annotations: Record<string, string> }).annotations.x, `base-${name}`);
    }
    assert.equal(config.values.extra, 'base');
  });

  it('Values: a mutating function named only in a comment or text shares the values (no copy per pod)', () => {
    const config = templatesConfig({
      t: '{{/* must be set by user; merge later */}}metadata: {annotations: {x: "set"}}\nspec: {containers: [{name: p, image: p}]}',
    });
    assert.equal(templatesMayMutate(config), false);
    const calls = templatesConfig({ t: '{{ $_ := unset (dict "a" 1) "a" }}spec: {containers: [{name: p, image: p}]}' });
    assert.equal(templatesMayMutate(calls), true);
  });

  it('Values: mustMerge and mustMergeOverwrite into .Values work too (their own copy per pod)', () => {
    for (const fn of ['mustMerge', 'mustMergeOverwrite', 'merge', 'mergeOverwrite']) {
      const config = templatesConfig(
        {
          t: `{{ $_ := ${fn} .Values (dict "extra" .ObjectMeta.Name "more" "m") }}metadata: {annotations: {x: {{ printf "%v-%v" .Values.extra .Values.more | quote }}}}\nspec: {containers: [{name: p, image: p}]}`,
        },
        {},
        { other: 'base' },
      );
      assert.equal(templatesMayMutate(config), true, fn);
      for (const name of ['a', 'b']) {
        const r = injectPod({ metadata: { name }, spec: { containers: [{ name: 'app' }] } }, { namespace: 'x', mode: 'webhook' }, config);
        assert.equal(r.kind === 'injected' && (r.pod.metadata as { annotations: Record<string, string> }).annotations.x, `${name}-m`, fn);
      }
      assert.deepEqual(config.values, { other: 'base' }, `${fn} left the config's values alone`);
    }
  });

  it('ProxyImage follows Istio: hub/image:tag, image types replace a known suffix', () => {
    const values = { global: { hub: 'reg.io/istio', tag: '1.20-distroless', proxy: { image: 'proxyv2' } } };
    assert.equal(proxyImage(values, {}, {}, 'proxy'), 'reg.io/istio/proxyv2:1.20-distroless');
    assert.equal(proxyImage(values, { image: { imageType: 'debug' } }, {}, 'proxy'), 'reg.io/istio/proxyv2:1.20-debug');
    assert.equal(proxyImage(values, {}, { 'sidecar.istio.io/proxyImageType': 'default' }, 'proxy'), 'reg.io/istio/proxyv2:1.20');
    assert.equal(proxyImage({ global: { hub: 'h', tag: 1.12 } }, {}, {}, 'proxy_init'), 'h/proxyv2:1.12');
    assert.equal(
      render('{{ .ProxyImage }} {{ .ProxyUID }} {{ .NativeSidecars }} [{{ .CompliancePolicy }}] [{{ .Revision }}]', POD),
      'docker.io/istio/proxyv2:1.24.2 1337 false [] []',
    );
  });
});
