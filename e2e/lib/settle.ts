/**
 * @module e2e/lib/settle
 * After the apiserver restarts, the other components reconnect at once, often before its RBAC
 * caches are filled: their watches are refused (403), and client-go backs each one off for up to
 * about 30 s. Until they are back, a namespace gets no kube-root-ca.crt and a Deployment no pods
 * (a helm install that follows waited 56 s instead of 10, and a webhook Service answered "no
 * route to host"). A scenario that restarts the apiserver waits here before the next one runs:
 * proof by use, not by a fixed sleep.
 */
import { noNodeReason, IMAGES, waitRunning } from './node.js';
import { createNamespace, kubectl, waitFor } from './kube.js';

/**
 * The controller-manager publishes the root CA into a new namespace and makes a Deployment's
 * pod; with a node, the scheduler places it and the kubelet runs it. Then the namespace goes.
 */
export async function waitClusterSettled(timeoutMs = 180_000): Promise<void> {
  const ns = `si-e2e-settle-${Date.now().toString(36)}`;
  await createNamespace(ns);
  try {
    await waitFor(`kube-root-ca.crt in ${ns} (the controller-manager's watches are back)`, async () =>
      (await kubectl(['-n', ns, 'get', 'configmap', 'kube-root-ca.crt'], { allowFail: true })).code === 0, timeoutMs, 500);
    const deployment = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'settle', namespace: ns },
      spec: {
        replicas: 1, selector: { matchLabels: { app: 'settle' } },
        template: { metadata: { labels: { app: 'settle' } }, spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'app', image: IMAGES.app }] } },
      },
    };
    await kubectl(['create', '-f', '-'], { input: JSON.stringify(deployment) });
    if ((await noNodeReason()) === false) await waitRunning(ns, 'app=settle', 1, timeoutMs);
    else await waitFor(`the settle Deployment's pod in ${ns}`, async () => (await kubectl(['-n', ns, 'get', 'pods', '-l', 'app=settle', '-o', 'name'])).stdout.trim() !== '', timeoutMs, 500);
  } finally {
    await kubectl(['delete', 'namespace', ns, '--wait=true', '--timeout=120s'], { allowFail: true, timeoutMs: 130_000 });
  }
}
