import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject } from '../util/json.js';
import { reorderPod } from './reorder.js';

const c = (name: string, extra: Record<string, unknown> = {}) => ({ name, ...extra });
const names = (pod: JsonObject, list: string) => ((pod.spec as Record<string, { name: string }[]>)[list] ?? []).map((x) => x.name);

function run(
  containers: string[],
  inits: (string | [string, string])[],
  injected: { containers: string[]; initContainers: string[] },
  user: { containers: string[]; initContainers: string[] },
  holdFirst = false,
  initBeforeProxy: string[] = [],
) {
  const pod: JsonObject = {
    spec: {
      containers: containers.map((n) => c(n)),
      initContainers: inits.map((n) => (Array.isArray(n) ? c(n[0], { restartPolicy: n[1] }) : c(n))),
    },
  };
  // leadingInit as the Istio profile gives it.
  reorderPod(pod, injected, user, { holdFirst, initBeforeProxy, leadingInit: ['istio-validation'] });
  return { containers: names(pod, 'containers'), initContainers: names(pod, 'initContainers') };
}

describe('reorderPod', () => {
  it("containers: the user's in their order, injected ones last in template order (SMP put them first)", () => {
    const r = run(['proxy', 'logs', 'app', 'db'], [], { containers: ['proxy', 'logs'], initContainers: [] }, { containers: ['app', 'db'], initContainers: [] });
    assert.deepEqual(r.containers, ['app', 'db', 'proxy', 'logs']);
  });

  it('containers: injected first when the proxy must start before the app', () => {
    const r = run(['app', 'proxy'], [], { containers: ['proxy'], initContainers: [] }, { containers: ['app'], initContainers: [] }, true);
    assert.deepEqual(r.containers, ['proxy', 'app']);
  });

  it("init containers with a native sidecar: traffic setup, sidecar, then the user's; named ones before the sidecar", () => {
    const injected = { containers: [], initContainers: ['istio-init', 'istio-proxy'] };
    const r = run(
      ['app'],
      ['istio-init', ['istio-proxy', 'Always'], 'migrate', 'warm'],
      injected,
      { containers: ['app'], initContainers: ['migrate', 'warm'] },
      false,
      ['warm'],
    );
    assert.deepEqual(r.initContainers, ['istio-init', 'warm', 'istio-proxy', 'migrate']);
  });

  it("init containers without a native sidecar: the user's first, traffic setup last, istio-validation first", () => {
    const r = run(['app'], ['istio-init', 'migrate'], { containers: [], initContainers: ['istio-init'] }, { containers: ['app'], initContainers: ['migrate'] });
    assert.deepEqual(r.initContainers, ['migrate', 'istio-init']);
    const cni = run(
      ['app'],
      ['istio-validation', 'migrate'],
      { containers: [], initContainers: ['istio-validation'] },
      { containers: ['app'], initContainers: ['migrate'] },
    );
    assert.deepEqual(cni.initContainers, ['istio-validation', 'migrate']);
  });

  it("items neither the user's nor injected keep their place after the user's", () => {
    const r = run(['proxy', 'app', 'stranger'], [], { containers: ['proxy'], initContainers: [] }, { containers: ['app'], initContainers: [] });
    assert.deepEqual(r.containers, ['app', 'stranger', 'proxy']);
  });
});
