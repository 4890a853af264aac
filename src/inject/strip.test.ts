/**
 * Stripping pods injected by Istio (a status without our undo record): the listed items go,
 * Istio's saved overrides come back, rewritten probes get their originals back, so injecting
 * again gives a pod as if Istio had never touched it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultConfig } from '../profiles/index.js';
import { cloneJson } from '../util/json.js';
import { injectPod, uninjectPod } from './index.js';
import type { Pod } from './pod-types.js';
import { stripPod } from './strip.js';

type Obj = Record<string, unknown>;

const ISTIO_STATUS = '{"initContainers":["istio-init"],"containers":["istio-proxy"],"volumes":["istio-envoy"],"imagePullSecrets":null,"revision":"default"}';

function istioInjected(): Pod {
  return {
    metadata: {
      name: 'p',
      annotations: {
        'sidecar.istio.io/status': ISTIO_STATUS,
        'proxy.istio.io/overrides': '{"containers":[{"name":"istio-proxy","resources":{},"imagePullPolicy":"Always"}]}',
      },
    },
    spec: {
      initContainers: [{ name: 'istio-init', image: 'proxyv2' }],
      containers: [
        { name: 'app', image: 'app', livenessProbe: { httpGet: { path: '/app-health/app/livez', port: 15020 }, periodSeconds: 3 } },
        {
          name: 'istio-proxy',
          image: 'proxyv2',
          env: [{ name: 'ISTIO_KUBE_APP_PROBERS', value: '{"/app-health/app/livez":{"httpGet":{"path":"/live","port":8080}}}' }],
        },
      ],
      volumes: [
        { name: 'istio-envoy', emptyDir: {} },
        { name: 'data', emptyDir: {} },
      ],
    },
  };
}

describe('stripping an Istio injection', () => {
  it('removes the listed items, restores rewritten probes and puts back the saved overrides', () => {
    const pod = istioInjected();
    const warnings: string[] = [];
    const { previous } = stripPod(pod, defaultConfig(), warnings);
    assert.equal(previous?.ours, false);
    const spec = pod.spec as Obj;
    assert.deepEqual(spec.initContainers, []);
    assert.deepEqual(spec.volumes, [{ name: 'data', emptyDir: {} }]);
    const containers = spec.containers as Obj[];
    assert.deepEqual(containers[0].livenessProbe, { httpGet: { path: '/live', port: 8080 }, periodSeconds: 3 });
    assert.deepEqual(containers[1], { name: 'istio-proxy', resources: {}, imagePullPolicy: 'Always' }, 'the user customisation Istio saved');
    assert.equal(((pod.metadata as Obj).annotations as Obj)['sidecar.istio.io/status'], undefined);
  });

  it('injecting over an Istio injection warns and is idempotent from then on', () => {
    const r = injectPod(istioInjected(), { namespace: 'x', mode: 'webhook' }, defaultConfig());
    assert.equal(r.kind, 'injected');
    if (r.kind !== 'injected') return;
    assert.match(r.warnings.join('\n'), /injected by another injector/);
    const again = injectPod(cloneJson(r.pod), { namespace: 'x', mode: 'webhook' }, defaultConfig());
    assert.equal(again.kind === 'injected' && again.patch.length, 0);
  });

  it('uninject of an Istio injection removes its items and says what it kept', () => {
    const u = uninjectPod(istioInjected(), defaultConfig());
    assert.equal(u.kind, 'uninjected');
    if (u.kind === 'uninjected') {
      assert.match(u.warnings.join('\n'), /written by another injector/);
      assert.deepEqual(u.removed.containers, ['istio-proxy']);
    }
    assert.deepEqual(uninjectPod({ spec: { containers: [{ name: 'a' }] } }, defaultConfig()).kind, 'not-injected');
  });
});
