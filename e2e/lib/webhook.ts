/**
 * @module e2e/lib/webhook
 * Our webhook as a developer runs it against a cluster (the URL mode of `manifests`):
 * `sidecar-injector serve` on 127.0.0.1 with the certificate `manifests --webhook-url
 * --certs-dir` issued for that address, and the MutatingWebhookConfiguration from the same
 * `manifests` run, applied with kubectl. Nothing here is hand-written YAML.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../test/support/server-process.js';
import { apply, cli, kubectl, waitFor, type Obj } from './kube.js';
import { spawnServe, type ServeProcess } from './in-pod.js';

export { freePort };

export interface WebhookOptions {
  /** Name of the MutatingWebhookConfiguration (cluster-scoped: unique per scenario). */
  name: string;
  failurePolicy?: 'Fail' | 'Ignore';
  /** `--config` for both manifests (selectors, keys) and serve (templates). */
  config?: string;
  serveArgs?: string[];
  manifestsArgs?: string[];
  /** Extra environment for serve (e.g. the in-cluster variables). */
  env?: NodeJS.ProcessEnv;
  /** Run serve through a wrapper (e.g. a private mount namespace): gets and returns the command line. */
  wrap?: (command: string, args: string[]) => [string, string[]];
  /** Apply the webhook configuration (default true). */
  install?: boolean;
}

export interface RunningWebhook {
  name: string;
  port: number;
  url: string;
  certsDir: string;
  /** The MutatingWebhookConfiguration YAML `manifests` wrote. */
  manifest: string;
  /** serve's output so far (for failure messages). */
  output(): string;
  /** Stop the server (the configuration stays: the apiserver now finds the webhook down). */
  stop(): Promise<void>;
  /** Start the server again on the same port and certificate. */
  start(): Promise<void>;
  /** Stop the server, delete the configuration and the certificate directory. */
  remove(): Promise<void>;
}

function httpsGet(url: string, ca: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { ca, timeout: 2000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

export async function startWebhook(options: WebhookOptions): Promise<RunningWebhook> {
  const certsDir = await mkdtemp(join(tmpdir(), `si-e2e-${options.name}-`));
  const port = await freePort();
  const url = `https://127.0.0.1:${port}`;
  const configArgs = options.config ? ['--config', options.config] : [];
  const manifest = (
    await cli([
      'manifests',
      '--webhook-url',
      url,
      '--certs-dir',
      certsDir,
      '--name',
      options.name,
      '--failure-policy',
      options.failurePolicy ?? 'Fail',
      ...configArgs,
      ...(options.manifestsArgs ?? []),
    ])
  ).stdout;
  const ca = await readFile(join(certsDir, 'ca.crt'), 'utf8');
  let serve: ServeProcess | undefined;
  let last: ServeProcess | undefined;
  const start = async (): Promise<void> => {
    const s = spawnServe(
      ['--tls-dir', certsDir, '--port', String(port), '--address', '127.0.0.1', '--log-level', 'warn', ...configArgs, ...(options.serveArgs ?? [])],
      { env: options.env, wrap: options.wrap },
    );
    serve = s;
    last = s;
    await waitFor(
      `serve on ${url} to be ready`,
      async () => {
        if (s.child.exitCode !== null) throw new Error(`serve exited ${s.child.exitCode}: ${s.output()}`);
        return (await httpsGet(`${url}/readyz`, ca)) === 200;
      },
      30_000,
      100,
    );
  };
  const stop = async (): Promise<void> => {
    const s = serve;
    serve = undefined;
    await s?.stop();
  };
  // The configuration first, as an install applies it: the server (and its caBundle
  // reconciler) then finds it from its first moment.
  if (options.install !== false) await apply(manifest);
  try {
    await start();
  } catch (err) {
    await kubectl(['delete', 'mutatingwebhookconfiguration', options.name, '--ignore-not-found'], { allowFail: true });
    await rm(certsDir, { recursive: true, force: true });
    throw err;
  }
  return {
    name: options.name,
    port,
    url,
    certsDir,
    manifest,
    output: () => last?.output() ?? '',
    stop,
    start,
    async remove() {
      await stop();
      await kubectl(['delete', 'mutatingwebhookconfiguration', options.name, '--ignore-not-found'], { allowFail: true });
      await rm(certsDir, { recursive: true, force: true });
    },
  };
}

/** One counter of serve's /metrics (summed over its label sets matching `labels`). */
export async function metric(hook: RunningWebhook, name: string, labels: Record<string, string> = {}): Promise<number> {
  const ca = await readFile(join(hook.certsDir, 'ca.crt'), 'utf8');
  const text = await new Promise<string>((resolve, reject) => {
    const req = request(`${hook.url}/metrics`, { ca, timeout: 5000 }, (res) => {
      let body = '';
      res
        .setEncoding('utf8')
        .on('data', (c: string) => {
          body += c;
        })
        .on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)(\{[^}]*\})? ([0-9.e+-]+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    if (Object.entries(labels).every(([k, v]) => (m[2] ?? '').includes(`${k}="${v}"`))) sum += Number(m[3]);
  }
  return sum;
}

/** A minimal pod with one container (the app the sidecar joins). */
export function appPod(name: string, extra: { labels?: Record<string, string>; annotations?: Record<string, string>; spec?: Obj } = {}): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: name, ...(extra.labels ?? {}) }, ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }], ...(extra.spec ?? {}) },
  };
}

/** Server-side dry run of a pod create: the pod as the apiserver would store it, admission included. */
export async function dryRunCreate(namespace: string, pod: Obj): Promise<Obj> {
  const r = await kubectl(['-n', namespace, 'create', '--dry-run=server', '-o', 'json', '-f', '-'], { input: JSON.stringify(pod) });
  return JSON.parse(r.stdout) as Obj;
}

/**
 * The apiserver loads webhook configurations asynchronously: wait until a dry-run pod in an
 * opted-in namespace comes back with the given container, i.e. the webhook is really called.
 */
export async function waitUntilInjecting(namespace: string, sidecar: string, timeoutMs = 30_000): Promise<void> {
  await waitFor(
    `the apiserver to call the webhook in ${namespace}`,
    async () => {
      const pod = await dryRunCreate(namespace, appPod('probe'));
      return (pod.spec.containers as Obj[]).some((c) => c.name === sidecar);
    },
    timeoutMs,
    300,
  );
}
