/**
 * @module e2e/lib/settle
 * After the apiserver restarts, the other components reconnect at once, often before its RBAC
 * caches are filled: their watches are refused (403), and client-go backs each one off, with
 * jitter, for up to about a minute. Until they are back, a namespace gets no ServiceAccount or
 * root CA, a Deployment no pods and a Service no endpoints (a helm install that followed waited
 * 56-60 s instead of 9, and its webhook Service refused connections). A scenario that restarts
 * the apiserver waits here before the next one runs: proof by use, not a fixed sleep.
 */
import { noNodeReason, IMAGES, waitRunning } from './node.js';
import { kubectl, waitFor } from './kube.js';

const exists = async (args: string[]): Promise<boolean> => (await kubectl(args, { allowFail: true })).code === 0;

/**
 * The controller-manager makes a new namespace's ServiceAccount and root CA, a Deployment's pod
 * and, once the pod is ready, the Service's endpoints; with a node, the scheduler places the pod
 * and the kubelet runs it. Then the namespace goes.
 */
export async function waitClusterSettled(timeoutMs = 180_000): Promise<void> {
  const ns = `si-e2e-settle-${Date.now().toString(36)}`;
  const deadline = Date.now() + timeoutMs;
  const left = (): number => Math.max(1000, deadline - Date.now());
  await kubectl(['create', 'namespace', ns]);
  try {
    await waitFor(`the default ServiceAccount in ${ns}`, () => exists(['-n', ns, 'get', 'serviceaccount', 'default']), left(), 500);
    await waitFor(`kube-root-ca.crt in ${ns}`, () => exists(['-n', ns, 'get', 'configmap', 'kube-root-ca.crt']), left(), 500);
    const labels = { app: 'settle' };
    const objects = [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'settle', namespace: ns },
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'app', image: IMAGES.app }] } },
        },
      },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'settle', namespace: ns }, spec: { selector: labels, ports: [{ port: 8080 }] } },
    ];
    await kubectl(['create', '-f', '-'], { input: objects.map((o) => JSON.stringify(o)).join('\n') });
    if ((await noNodeReason()) !== false) {
      await waitFor(
        `the settle Deployment's pod in ${ns}`,
        async () => (await kubectl(['-n', ns, 'get', 'pods', '-l', 'app=settle', '-o', 'name'])).stdout.trim() !== '',
        left(),
        500,
      );
      return;
    }
    await waitRunning(ns, 'app=settle', 1, left());
    await waitFor(
      `a ready endpoint of Service settle in ${ns}`,
      async () => {
        const r = await kubectl(
          ['-n', ns, 'get', 'endpointslices', '-l', 'kubernetes.io/service-name=settle', '-o', 'jsonpath={.items[*].endpoints[*].conditions.ready}'],
          { allowFail: true },
        );
        return r.code === 0 && r.stdout.includes('true');
      },
      left(),
      500,
    );
  } finally {
    await kubectl(['delete', 'namespace', ns, '--wait=true', '--timeout=120s'], { allowFail: true, timeoutMs: 130_000 });
  }
}
