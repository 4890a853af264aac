/**
 * The built-in default config (defaults/): it loads, and its sidecar template renders a
 * well-formed, safe pod overlay in every mode (classic, native sidecar, no redirection).
 * The template data is built the way the injection core does: Go struct views over the pod.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { viewAs } from '../istio/go-struct.js';
import { defaultConfig } from './index.js';

interface Container {
  name: string;
  image: string;
  args: string[];
  restartPolicy?: string;
  ports?: { containerPort: number }[];
  readinessProbe?: { httpGet: { port: number } };
  startupProbe?: unknown;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext: { runAsUser: number; runAsGroup?: number; runAsNonRoot: boolean; capabilities: { add?: string[]; drop: string[] } };
  env: { name: string; value?: string }[];
}
interface Overlay {
  metadata?: { annotations?: Record<string, string> };
  spec: { initContainers?: Container[]; containers?: Container[]; volumes: { name: string }[] };
}

function render(annotations: Record<string, string> = {}, values?: Record<string, unknown>): Overlay {
  const cfg = defaultConfig();
  const pod = {
    metadata: { name: 'web-1', namespace: 'shop', annotations },
    spec: {
      containers: [
        { name: 'web', image: 'nginx' },
        { name: 'worker', image: 'w' },
      ],
    },
  };
  const data = {
    TypeMeta: viewAs('v1.TypeMeta', { kind: 'Pod', apiVersion: 'v1' }),
    ObjectMeta: viewAs('v1.ObjectMeta', pod.metadata),
    Spec: viewAs('v1.PodSpec', pod.spec),
    DeploymentMeta: { Name: 'web', Namespace: 'shop' },
    Values: values ?? structuredClone(cfg.values),
    Revision: 'default',
  };
  const text = cfg.compiledTemplates.get('sidecar')!.execute(data);
  return parse(text, { version: '1.1' }) as Overlay;
}

const names = (list: { name: string }[] | undefined) => (list ?? []).map((c) => c.name);
const arg = (c: Container, flag: string) => c.args[c.args.indexOf(flag) + 1];

describe('built-in sidecar template', () => {
  it('classic mode: proxy-init redirects traffic, sidecar-proxy runs as 1337 with probes', () => {
    const o = render();
    assert.deepEqual(names(o.spec.initContainers), ['proxy-init']);
    assert.deepEqual(names(o.spec.containers), ['sidecar-proxy']);
    assert.deepEqual(names(o.spec.volumes), ['sidecar-proxy-workdir', 'sidecar-podinfo', 'sidecar-token']);
    const init = o.spec.initContainers![0];
    assert.equal(init.image, 'docker.io/istio/proxyv2:1.24.2');
    assert.equal(arg(init, '-p'), '15001');
    assert.equal(arg(init, '-z'), '15006');
    assert.equal(arg(init, '-u'), '1337');
    assert.equal(arg(init, '-m'), 'REDIRECT');
    assert.equal(arg(init, '-d'), '15090,15021');
    assert.ok(!init.args.includes('-o'), 'no outbound port exclusion by default');
    assert.deepEqual(init.securityContext.capabilities.add, ['NET_ADMIN', 'NET_RAW']);
    const proxy = o.spec.containers![0];
    assert.equal(proxy.securityContext.runAsUser, 1337);
    assert.equal(proxy.securityContext.runAsNonRoot, true);
    assert.equal(proxy.readinessProbe?.httpGet.port, 15021);
    assert.equal(proxy.startupProbe, undefined);
    assert.deepEqual(proxy.resources, { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '2000m', memory: '1Gi' } });
    assert.equal(proxy.env.find((e) => e.name === 'ISTIO_META_APP_CONTAINERS')?.value, 'web,worker');
    assert.equal(proxy.env.find((e) => e.name === 'ISTIO_META_WORKLOAD_NAME')?.value, 'web');
    assert.equal(o.metadata?.annotations?.['kubectl.kubernetes.io/default-container'], 'web');
  });

  it('native mode (annotation): the proxy is an init container with restartPolicy Always and a startup probe', () => {
    const o = render({ 'sidecar.istio.io/nativeSidecar': 'true' });
    assert.deepEqual(names(o.spec.initContainers), ['proxy-init', 'sidecar-proxy']);
    assert.equal(o.spec.containers, undefined, 'no containers key, so the merge keeps the app containers untouched');
    assert.equal(o.spec.initContainers![1].restartPolicy, 'Always');
    assert.ok(o.spec.initContainers![1].startupProbe);
  });

  it('interception mode NONE: no proxy-init, in classic and native mode', () => {
    assert.deepEqual(names(render({ 'sidecar.istio.io/interceptionMode': 'NONE' }).spec.initContainers), []);
    const native = render({ 'sidecar.istio.io/interceptionMode': 'NONE', 'sidecar.istio.io/nativeSidecar': 'true' });
    assert.deepEqual(names(native.spec.initContainers), ['sidecar-proxy']);
  });

  it('reads the traffic and resource annotations, and drops probes for status port 0', () => {
    const o = render({
      'traffic.sidecar.istio.io/excludeOutboundPorts': '3306,6379',
      'traffic.sidecar.istio.io/excludeInboundPorts': '9090',
      'status.sidecar.istio.io/port': '0',
      'sidecar.istio.io/proxyCPULimit': '',
      'kubectl.kubernetes.io/default-container': 'worker',
    });
    const init = o.spec.initContainers![0];
    assert.equal(arg(init, '-o'), '3306,6379');
    assert.equal(arg(init, '-d'), '15090,9090');
    const proxy = o.spec.containers![0];
    assert.equal(proxy.readinessProbe, undefined);
    assert.deepEqual(proxy.resources?.limits, { memory: '1Gi' });
    assert.equal(o.metadata, undefined, 'an existing default-container annotation is left alone');
  });

  it('keeps hostile annotation values inside strings (no YAML injection)', () => {
    const evil = '"\n    - name: evil\n      image: evil';
    const o = render({ 'traffic.sidecar.istio.io/excludeOutboundPorts': evil, 'sidecar.istio.io/proxyCPU': 'x\ny: z' });
    assert.deepEqual(names(o.spec.initContainers), ['proxy-init']);
    assert.equal(arg(o.spec.initContainers![0], '-o'), evil);
    assert.equal(o.spec.containers![0].resources?.requests?.cpu, 'x\ny: z');
  });

  it('uses a full image reference from values as is', () => {
    const values = structuredClone(defaultConfig().values) as { global: { proxy: { image: string } } };
    values.global.proxy.image = 'registry.example.com/mesh/proxy:2.0';
    assert.equal(render({}, values).spec.containers![0].image, 'registry.example.com/mesh/proxy:2.0');
  });
});
