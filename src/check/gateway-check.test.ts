/**
 * `config check` on Istio's gateway templates (issue 36 item 5): a gateway deployment template
 * is rendered for Gateways of its class, with the fields istiod's controller gives it, and its
 * output is checked as the API server would take it; a pod template of the same name is still
 * a pod template. The byte-for-byte agreement with Istio's own code is
 * src/istio/gateway-data.istio.test.ts; today's Istio ConfigMap is a row of
 * src/cli/command-truth.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GATEWAY_CLASSES, gatewayDerived, gatewayServicePorts } from '../istio/gateway-data.js';
import { meshSettings } from '../istio/mesh-config.js';
import { parseConfig } from '../profiles/index.js';
import type { JsonObject } from '../util/json.js';
import { checkConfig, formatReport } from './check.js';
import { renderedProblems } from './gateway-check.js';
import { representativeGateways } from './gateways.js';
import { basePods } from './pods.js';

const SIDECAR = `    spec:
      containers:
      - name: agent
        image: registry.example/agent:1`;

/** A waypoint template of Istio's shape; `edit` changes its text. */
function waypoint(edit: (t: string) => string = (t) => t): string {
  return edit(`    apiVersion: v1
    kind: ServiceAccount
    metadata:
      name: {{ .ServiceAccount | quote }}
      namespace: {{ .Namespace | quote }}
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: {{ .DeploymentName | quote }}
      namespace: {{ .Namespace }}
      annotations: {{ toJsonMap .InfrastructureAnnotations }}
      ownerReferences:
      - {apiVersion: gateway.networking.k8s.io/v1, kind: {{ .Kind }}, name: {{ .Name }}, uid: "{{ .UID }}"}
    spec:
      selector:
        matchLabels: {"{{ .GatewayNameLabel }}": {{ .Name | quote }}}
      template:
        metadata:
          labels: {"{{ .GatewayNameLabel }}": {{ .Name | quote }}, class: {{ .Spec.GatewayClassName | quote }}}
        spec:
          serviceAccountName: {{ .ServiceAccount | quote }}
          containers:
          - name: istio-proxy
            image: {{ .ProxyImage | quote }}
            ports:
            {{- range .Ports }}
            - {containerPort: {{ .Port }}, name: {{ .Name | quote }}}
            {{- end }}
    ---
    apiVersion: v1
    kind: Service
    metadata:
      name: {{ .DeploymentName | quote }}
    spec:
      type: {{ .ServiceType }}
      ports:
      {{- range .Ports }}
      - {name: {{ .Name | quote }}, port: {{ .Port }}}
      {{- end }}`);
}

function config(waypointText: string) {
  return parseConfig(
    `compatibility: istio\ntemplates:\n  sidecar: |\n${SIDECAR}\n  waypoint: |\n${waypointText}\nvalues:\n  global: {hub: registry.example, tag: "1.0"}\n`,
    undefined,
    'gateway-check.test',
  );
}

describe('config check on gateway templates', () => {
  it('a gateway deployment template is rendered for two Gateways of its class, the pod template for the pods', () => {
    const c = config(waypoint());
    const r = checkConfig(c, basePods(c));
    assert.deepEqual(r.failures, []);
    assert.deepEqual(r.targets, [{ template: 'waypoint', kind: 'Gateway', names: ['plain', 'with infrastructure and overrides'] }]);
    assert.equal(r.renders, basePods(c).length + 2);
    assert.match(formatReport(r), /^ok: 1 template\(s\) x 4 pod\(s\) \+ waypoint x 2 Gateway\(s\) = 6 renders, 0 failure\(s\)/m);
  });

  it('a field the controller does not give is a failure naming the template, the Gateway and the line', () => {
    const c = config(waypoint((t) => t.replace('{{ .ServiceAccount | quote }}', '{{ .ServiceAcount | quote }}')));
    const text = `compatibility: istio\ntemplates:\n  sidecar: |\n${SIDECAR}\n  waypoint: |\n${waypoint()}\n`;
    const r = checkConfig(c, basePods(c), { source: { file: 'c.yaml', text } });
    assert.equal(r.failures.length, 2);
    assert.equal(r.failures[0].target, 'Gateway');
    assert.match(text.split('\n')[(r.failures[0].line ?? 0) - 1], /name: \{\{ \.ServiceAccount/, 'the line of the field');
    assert.match(
      formatReport(r),
      /^FAIL c\.yaml:12: template waypoint, Gateway plain \(waypoint, class istio-waypoint\): SI_TEMPLATE_EXEC: .*can't evaluate field ServiceAcount in type gatewaycommon\.derivedInput/m,
    );
  });

  it('what the API server refuses in the output is a failure: a selector that misses the pod labels, a bad container name', () => {
    const c = config(waypoint((t) => t.replace('labels: {"{{ .GatewayNameLabel }}"', 'labels: {"other"').replace('name: istio-proxy', 'name: Istio_Proxy')));
    const fields = checkConfig(c, basePods(c)).failures.map((f) => `${f.field}: ${f.message}`);
    assert.ok(
      fields.includes(
        'Deployment/waypoint.spec.template.metadata.labels: Invalid value: `selector` does not match template `labels` (gateway.networking.k8s.io/gateway-name)',
      ),
      fields.join('\n'),
    );
    assert.ok(
      fields.some((f) => f.startsWith('Deployment/waypoint.spec.template.spec.containers[') && /DNS-1123/.test(f)),
      fields.join('\n'),
    );
  });

  it('a missing value printed is a failure, with the missing-key warning once per template', () => {
    const c = config(waypoint((t) => t.replace('annotations: {{ toJsonMap .InfrastructureAnnotations }}', 'annotations: {owner: "{{ .Values.owner }}"}')));
    const r = checkConfig(c, basePods(c));
    assert.deepEqual(
      r.failures.map((f) => `${f.pod}: ${f.field}`),
      [
        'plain (waypoint, class istio-waypoint): Deployment/waypoint.metadata.annotations.owner',
        'with infrastructure and overrides (waypoint-custom, class istio-waypoint): Deployment/custom-deployment.metadata.annotations.owner',
      ],
    );
    assert.equal(r.warnings.filter((w) => w.template === 'waypoint' && w.field === 'missing key').length, 1);
  });

  it('a pod template called waypoint (no Deployment in it), or any template outside Istio compatibility, is checked against the pods', () => {
    for (const c of [config(SIDECAR), parseConfig(`compatibility: none\ntemplates:\n  sidecar: |\n${SIDECAR}\n  waypoint: |\n${SIDECAR}\n`, undefined, 't')]) {
      const r = checkConfig(c, basePods(c));
      assert.deepEqual(r.targets, []);
      assert.deepEqual(r.failures, []);
      assert.equal(r.renders, 2 * basePods(c).length);
    }
  });
});

describe('what the gateway controller derives', () => {
  const c = config(waypoint());
  const input = (template: string) => ({ config: c, mesh: meshSettings(c), gatewayClass: GATEWAY_CLASSES.find((x) => x.template === template)! });

  it('names: NAME-CLASS for the istio class only; the annotations override the deployment and service account names', () => {
    const kube = input('kube-gateway');
    const [plain, custom] = representativeGateways(kube.gatewayClass);
    assert.equal(gatewayDerived(plain.gateway, kube).DeploymentName, 'gateway-istio');
    assert.equal(gatewayDerived(plain.gateway, input('waypoint')).ServiceAccount, 'gateway');
    const d = gatewayDerived(custom.gateway, kube);
    assert.deepEqual([d.DeploymentName, d.ServiceAccount, d.ServiceType], ['custom-deployment', 'custom-sa', 'ClusterIP']);
    assert.equal(gatewayDerived(plain.gateway, kube).ServiceType, 'LoadBalancer');
    assert.equal(gatewayDerived(plain.gateway, kube).ProxyImage, 'registry.example/proxyv2:1.0');
    assert.equal(gatewayDerived(plain.gateway, input('agentgateway')).AgentgatewayImage, 'registry.example/agentgateway:1.0');
  });

  it("labels: spec.infrastructure's (gateway.networking.k8s.io/ keys dropped) over the Gateway's; non-waypoints stay out of ambient", () => {
    const gw = (labels: Record<string, string>, infra?: Record<string, string>): JsonObject => ({
      metadata: { name: 'g', labels },
      spec: { gatewayClassName: 'istio', ...(infra === undefined ? {} : { infrastructure: { labels: infra } }) },
    });
    assert.deepEqual(gatewayDerived(gw({ a: '1' }), input('kube-gateway')).InfrastructureLabels, { a: '1', 'istio.io/dataplane-mode': 'none' });
    assert.deepEqual(gatewayDerived(gw({ a: '1' }, { b: '2', 'gateway.networking.k8s.io/x': 'y' }), input('kube-gateway')).InfrastructureLabels, {
      b: '2',
      'istio.io/dataplane-mode': 'none',
    });
    assert.deepEqual(gatewayDerived(gw({ 'istio.io/dataplane-mode': 'ambient' }), input('kube-gateway')).InfrastructureLabels, {
      'istio.io/dataplane-mode': 'ambient',
    });
    assert.deepEqual(gatewayDerived(gw({}), input('waypoint')).InfrastructureLabels, {});
    const net = parseConfig(`templates:\n  sidecar: |\n${SIDECAR}\nvalues:\n  global: {network: net1}\n`, undefined, 't');
    const withNet = { config: net, mesh: meshSettings(net), gatewayClass: input('waypoint').gatewayClass };
    assert.deepEqual(gatewayDerived(gw({}), withNet).InfrastructureLabels, { 'topology.istio.io/network': 'net1' });
  });

  it('ports: status-port, then each listener port once, names made valid and distinct', () => {
    const ports = gatewayServicePorts({
      spec: {
        listeners: [
          { name: 'a.b', port: 80, protocol: 'HTTP' },
          { name: 'a-b', port: 81, protocol: 'TCP' },
          { name: 'again', port: 80, protocol: 'HTTP' },
          { name: '', port: 82, protocol: 'TLS' },
        ],
      },
    });
    assert.deepEqual(
      ports.map((p) => `${String(p.name)}:${String(p.port)}:${String(p.appProtocol)}`),
      ['status-port:15021:tcp', 'a-b:80:http', 'a-b-81:81:tcp', 'tls-3:82:tls'],
    );
  });
});

describe('the output checks', () => {
  it('invalid YAML, a missing kind or name, duplicate or out-of-range Service ports are named', () => {
    const problems = renderedProblems(
      'a: [\n---\napiVersion: v1\nmetadata: {name: x}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: Bad_Name}\nspec:\n  ports: [{name: a, port: 1}, {name: a, port: 70000}]\n',
    );
    assert.deepEqual(
      problems.map((p) => `${p.field}: ${p.message.split(':')[0]}`),
      [
        'document 1: the template rendered invalid YAML',
        'document 2.kind: Required value',
        'Service/Bad_Name.metadata.name: Invalid value',
        'Service/Bad_Name.spec.ports[1].port: Invalid value',
        'Service/Bad_Name.spec.ports[1].name: Duplicate value',
      ],
    );
  });
});
