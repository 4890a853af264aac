/**
 * Pod creation latency through the real apiserver (issue 17): with the MutatingAdmissionPolicy,
 * with the webhook (our `serve` on loopback, URL mode), and with neither, in one run.
 *
 *   npm run cluster -- up --no-node; eval "$(npm run -s cluster -- env | tail -1)"   # KUBECONFIG and kubectl on PATH
 *   npm run build && npx tsx bench/policy-latency.ts [--count 300] [--warmup 20]
 *
 * The same config (examples/policy-log-shipper) for both: the policy compiled from it, the
 * webhook serving it. Three namespaces, labelled so that each is reached by one injector only.
 * Each round creates one pod in each namespace, in a shuffled order, so drift on the shared
 * machine hits all three alike; every request is a real create (stored in etcd) over one
 * keep-alive HTTPS connection with the admin client certificate, timed from send to response.
 * Prints p50/p90/p99/mean per mode. Cleans up everything it made.
 */
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { repoRoot } from '../e2e/cluster/paths.js';
import { cli, createNamespace, deleteNamespaces, kubectl, waitFor, type Obj } from '../e2e/lib/kube.js';
import { startWebhook } from '../e2e/lib/webhook.js';
import { recordLoad } from './lib/quiet.js';

recordLoad();

const args = process.argv.slice(2);
const flag = (name: string, dflt: number): number => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const COUNT = flag('--count', 300);
const WARMUP = flag('--warmup', 20);

const kubeconfig = parse(readFileSync(process.env.KUBECONFIG ?? '', 'utf8')) as Obj;
const server = new URL(kubeconfig.clusters[0].cluster.server as string);
const b64 = (s: string) => Buffer.from(s, 'base64');
const agent = new Agent({
  keepAlive: true,
  maxSockets: 1,
  ca: b64(kubeconfig.clusters[0].cluster['certificate-authority-data']),
  cert: b64(kubeconfig.users[0].user['client-certificate-data']),
  key: b64(kubeconfig.users[0].user['client-key-data']),
});

function createPod(ns: string, pod: Obj): Promise<{ ms: number; body: Obj }> {
  const body = JSON.stringify(pod);
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = request(
      {
        host: server.hostname,
        port: server.port,
        method: 'POST',
        path: `/api/v1/namespaces/${ns}/pods`,
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (c: string) => (text += c))
          .on('end', () => {
            const ms = Number(process.hrtime.bigint() - t0) / 1e6;
            if (res.statusCode !== 201) reject(new Error(`create in ${ns}: HTTP ${res.statusCode}: ${text.slice(0, 300)}`));
            else resolve({ ms, body: JSON.parse(text) as Obj });
          });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'i17-latency-'));
  const policyConfig = join(repoRoot, 'examples/policy-log-shipper/config.yaml');
  // The webhook's copy differs only in its namespace label, so the two injectors never meet.
  const cfg = parse(readFileSync(policyConfig, 'utf8')) as Obj;
  cfg.injectionKeys.namespaceLabel = 'log-shipping-webhook';
  const webhookConfig = join(tmp, 'webhook-config.yaml');
  writeFileSync(webhookConfig, JSON.stringify(cfg));
  const ns = { none: 'i17-lat-none', policy: 'i17-lat-policy', webhook: 'i17-lat-webhook' } as const;
  const policyName = 'i17-latency';
  const hook = await startWebhook({ name: 'i17-latency', config: webhookConfig });
  try {
    await createNamespace(ns.none, { 'log-shipping': 'disabled', 'log-shipping-webhook': 'disabled' });
    await createNamespace(ns.policy, { 'log-shipping': 'enabled', 'log-shipping-webhook': 'disabled' });
    await createNamespace(ns.webhook, { 'log-shipping': 'disabled', 'log-shipping-webhook': 'enabled' });
    const yaml = (await cli(['policy', '-c', policyConfig, '--name', policyName])).stdout;
    const objects = parseAllDocuments(yaml).map((d) => d.toJSON() as Obj);
    for (const o of objects) o.metadata.labels = { 'i17-latency': 'true' };
    await kubectl(['apply', '-f', '-'], { input: objects.map((o) => JSON.stringify(o)).join('\n') });

    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { generateName: 'lat-', labels: { app: 'lat', 'logging.example.com/ship-logs': 'true' } },
      spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] },
    };
    const injected = (p: Obj) => (p.spec.initContainers ?? []).some((c: Obj) => c.name === 'log-shipper');
    for (const mode of ['policy', 'webhook'] as const) {
      await waitFor(`${mode} to inject`, async () => injected((await createPod(ns[mode], pod)).body), 30_000, 300);
    }
    const times: Record<keyof typeof ns, number[]> = { none: [], policy: [], webhook: [] };
    const modes = Object.keys(ns) as (keyof typeof ns)[];
    for (let i = 0; i < WARMUP + COUNT; i++) {
      const order = [...modes].sort(() => Math.random() - 0.5);
      for (const m of order) {
        const r = await createPod(ns[m], pod);
        if (injected(r.body) !== (m !== 'none')) throw new Error(`${m}: unexpected injection state`);
        if (i >= WARMUP) times[m].push(r.ms);
      }
    }
    const base = [...times.none].sort((a, b) => a - b);
    console.log(`kube-apiserver ${server.host}, ${COUNT} creations per mode after ${WARMUP} warm-up rounds, interleaved`);
    console.log('| mode | p50 ms | p90 ms | p99 ms | mean ms | p50 vs none |');
    console.log('|---|---|---|---|---|---|');
    for (const m of modes) {
      const s = [...times[m]].sort((a, b) => a - b);
      const mean = s.reduce((x, y) => x + y, 0) / s.length;
      console.log(
        `| ${m} | ${pct(s, 50).toFixed(2)} | ${pct(s, 90).toFixed(2)} | ${pct(s, 99).toFixed(2)} | ${mean.toFixed(2)} | ${(pct(s, 50) / pct(base, 50)).toFixed(2)}x |`,
      );
    }
  } finally {
    await kubectl(['delete', 'mutatingadmissionpolicybinding,mutatingadmissionpolicy', '-l', 'i17-latency', '--ignore-not-found'], { allowFail: true });
    await hook.remove();
    await deleteNamespaces(ns.none, ns.policy, ns.webhook);
    agent.destroy();
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
