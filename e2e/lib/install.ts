/**
 * @module e2e/lib/install
 * The injector installed as users install it, for the scenarios whose pods run: certificates
 * from `sidecar-injector certs`, then the real `helm install` of deploy/helm/sidecar-injector
 * (or `kubectl apply` of `manifests`' output) with our image, in service mode. The sidecar
 * config is the built-in one (defaults/); only its values point at the local test images, as a
 * user's values point at their registry.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { repoRoot } from '../cluster/paths.js';
import { cli, getJson, run, waitFor, type Obj } from './kube.js';
import { ourImage, waitRunning } from './node.js';

export const CHART = join(repoRoot, 'deploy/helm/sidecar-injector');
/** The chart's selector for the injector's own pods (si.selectorLabels). */
export const injectorSelector = (release: string): string => `app.kubernetes.io/name=sidecar-injector,app.kubernetes.io/instance=${release}`;

export interface E2eValues {
  /** The sidecar image's tag (e2e.local/proxy:TAG). */
  tag?: string;
  nativeSidecar?: boolean;
  logLevel?: string;
}

/**
 * defaults/values.yaml with the images at the local test image (the stand-in for Istio's
 * proxyv2, e2e/images/app), no traffic redirection (no proxy-init, which needs iptables in the
 * pod), and small requests so many pods fit on the one node.
 */
export function e2eValues(o: E2eValues = {}): string {
  const values = parse(readFileSync(join(repoRoot, 'defaults/values.yaml'), 'utf8')) as Obj;
  values.global.hub = 'e2e.local';
  values.global.tag = o.tag ?? '1';
  values.global.proxy.image = 'proxy';
  values.global.proxy.interceptionMode = 'NONE';
  values.global.proxy.nativeSidecar = o.nativeSidecar ?? true;
  values.global.proxy.logLevel = o.logLevel ?? 'warning';
  values.global.proxy.readinessPeriodSeconds = 2;
  values.global.proxy.resources = { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '64Mi' } };
  return stringify(values);
}

export function scratchDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** `sidecar-injector certs` for the Service `name` in `namespace`, as the chart's README says. */
export async function makeCerts(name: string, namespace: string, dir: string): Promise<{ ca: string; cert: string; key: string }> {
  await cli(['certs', '--service', name, '--namespace', namespace, '--out', dir]);
  return { ca: join(dir, 'ca.crt'), cert: join(dir, 'tls.crt'), key: join(dir, 'tls.key') };
}

export function writeFile(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

export function helm(args: string[], timeoutMs = 180_000) {
  return run('helm', args, { timeoutMs });
}

/** Helm's --set/--set-file flags for our image, the e2e values file and the certificates. */
export function chartFlags(valuesFile: string, certs: { ca: string; cert: string; key: string }, extra: string[] = []): string[] {
  const image = ourImage();
  return [
    '--set',
    `image.repository=${image.reference.slice(0, image.reference.lastIndexOf(':'))}`,
    '--set',
    `image.tag=${image.reference.slice(image.reference.lastIndexOf(':') + 1)}`,
    '--set-file',
    `injector.values=${valuesFile}`,
    '--set-file',
    `tls.caCert=${certs.ca},tls.cert=${certs.cert},tls.key=${certs.key}`,
    ...extra,
  ];
}

/** The caBundle of every webhook of a MutatingWebhookConfiguration (base64, '' when unset). */
export async function caBundles(name: string): Promise<string[]> {
  const mwc = await getJson(['mutatingwebhookconfiguration', name]);
  return (mwc.webhooks as Obj[]).map((w) => (w.clientConfig?.caBundle as string | undefined) ?? '');
}

/** Ready endpoints of a Service, from its EndpointSlices. */
export async function readyEndpoints(namespace: string, service: string): Promise<string[]> {
  const slices = await getJson(['endpointslices', '-n', namespace, '-l', `kubernetes.io/service-name=${service}`]);
  return (slices.items as Obj[])
    .flatMap((s) => (s.endpoints ?? []) as Obj[])
    .filter((e) => e.conditions?.ready === true)
    .flatMap((e) => e.addresses as string[]);
}

/** Waits for the injector's Deployment to have `replicas` ready pods and as many Service endpoints. */
export async function waitInjectorReady(namespace: string, name: string, release: string, replicas: number): Promise<Obj[]> {
  const list = await waitRunning(namespace, injectorSelector(release), replicas, 180_000);
  await waitFor(`${replicas} ready endpoints of Service ${name}`, async () => (await readyEndpoints(namespace, name)).length === replicas, 60_000);
  return list;
}
