/**
 * Issue 30: the reconciler is a good citizen toward the real apiserver, and survives it.
 * The apiserver is restarted with an audit log of reads (list, watch, get), so every request
 * it received is checked, not inferred:
 * 1. the reconciler's informer (src/heal/informer, as serve runs it) lists 1,100 pods in pages
 *    (`limit=500`, then `continue`), watches with bookmarks from the list's resourceVersion,
 *    resumes from the last one when the apiserver ends the watch (no list); while the apiserver
 *    is down it retries the watch with a doubling back-off, never a list; when it is back (etcd
 *    moved on meanwhile) the resumed watch gets 410 Gone and the informer lists exactly once;
 * 2. `serve --reconcile` through a stop and start of the apiserver: no crash, the counts right
 *    afterwards (changes made just after the restart included), each collection listed once
 *    after the restart, and no Event recorded twice.
 * Pods are made by the real injection core (bench/scale/plan), created directly; no webhook is
 * registered for these namespaces. The apiserver gets its own command line back afterwards.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { readState, type ClusterState } from '../cluster/cluster.js';
import { bumpEtcdRevision, restartApiserver } from '../cluster/restart.js';
import { cliPath, createNamespace, deleteNamespaces, getJson, kubectl, waitFor, type Obj } from '../lib/kube.js';
import { waitClusterSettled } from '../lib/settle.js';
import { freePort } from '../lib/webhook.js';
import { admittedPods, type Intended, type WorkloadPlan } from '../../bench/scale/plan.js';
import { ScaleClient } from '../../bench/scale/plane.js';
import { connect } from '../../src/kube/client.js';
import { Informer } from '../../src/heal/informer.js';

const NS = { main: 'i30-reconcile', skip: 'i30-reconcile-skip' };
const USER_AGENT = 'sidecar-injector/heal';
const tmp = mkdtempSync(join(tmpdir(), 'i30-e2e-'));
const auditLog = join(tmp, 'audit.log');
const children: ChildProcess[] = [];
let original: string[] | undefined;
let state: ClusterState;
let client: ScaleClient;
const expected = { current: 0, stale: 0, missing: 0, skipped: 0, foreign: 0 };

const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  verbs: [list, watch]
- level: None
`;

/** The apiserver's own command line, with or without our audit flags. */
const withAudit = (args: string[]): string[] => [
  ...args.filter((a) => !a.startsWith('--audit-')),
  `--audit-policy-file=${join(tmp, 'policy.yaml')}`,
  `--audit-log-path=${auditLog}`,
];

interface AuditEvent {
  verb: string;
  requestURI: string;
  userAgent?: string;
  requestReceivedTimestamp: string;
  responseStatus?: { code?: number };
}

/** Our requests (by user agent) the apiserver received since `since`, on `path`. */
function audited(since: Date, path: string): { verb: string; query: URLSearchParams }[] {
  return readFileSync(auditLog, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AuditEvent)
    .filter((e) => e.userAgent === USER_AGENT && new Date(e.requestReceivedTimestamp) >= since && e.requestURI.split('?')[0] === path)
    .map((e) => ({ verb: e.verb, query: new URLSearchParams(e.requestURI.split('?')[1] ?? '') }));
}

let made = 0;
/** Bare pods in a state, made by the real core, created through the apiserver. */
async function createPods(ns: string, state_: Intended, count: number): Promise<string[]> {
  const names: string[] = [];
  await Promise.all(
    Array.from({ length: count }, async () => {
      const w: WorkloadPlan = { index: made, kind: 'Pod', name: `p-${state_}-${made++}`, namespace: ns, pods: 1, state: state_ };
      const [pod] = admittedPods(w, 0, 1, undefined);
      await client.create(`/api/v1/namespaces/${ns}/pods`, pod);
      names.push(w.name);
      expected[state_ === 'skipped' ? 'skipped' : state_]++;
    }),
  );
  return names;
}

before(async () => {
  writeFileSync(join(tmp, 'policy.yaml'), AUDIT_POLICY);
  const s = readState();
  assert.ok(s, 'a running control plane (npm run e2e starts one)');
  original = readFileSync(`/proc/${s.daemons.find((d) => d.name === 'kube-apiserver')!.pid}/cmdline`, 'utf8')
    .split('\0')
    .filter((a) => a !== '')
    .slice(1);
  state = await restartApiserver(s, { args: withAudit });
  client = new ScaleClient(state, 16);
  await createNamespace(NS.main, { 'istio-injection': 'enabled' });
  await createNamespace(NS.skip, {});
  await createPods(NS.main, 'current', 1060);
  await createPods(NS.main, 'stale', 10);
  await createPods(NS.main, 'missing', 10);
  await createPods(NS.skip, 'skipped', 20);
  // A Deployment: the ReplicaSet controller makes its pods without a sidecar (no webhook here).
  await kubectl(['-n', NS.main, 'create', 'deployment', 'web', '--image=registry.example/web:1', '--replicas=3']);
  await waitFor(
    "the Deployment's 3 pods",
    async () => ((await getJson(['-n', NS.main, 'pods', '-l', 'app=web'])).items as Obj[]).length === 3 || undefined,
    60_000,
    500,
  );
  expected.missing += 3;
});

after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  client?.close();
  await deleteNamespaces(...Object.values(NS));
  const s = readState();
  if (s !== undefined && original !== undefined) await restartApiserver(s, { args: () => original! });
  rmSync(tmp, { recursive: true, force: true });
  // The next scenario meets a control plane whose components are back from the restarts, and a
  // cluster without these 1,100 pods (the namespace controller deletes them after the restart).
  await waitClusterSettled();
  await kubectl(['delete', 'namespace', ...Object.values(NS), '--ignore-not-found', '--wait=true', '--timeout=180s'], { allowFail: true, timeoutMs: 190_000 });
});

test('30.1: paginated list, bookmarks, resume from the last resourceVersion; while the apiserver is down, watch retries with back-off; 410 Gone relists once', async () => {
  const path = `/api/v1/namespaces/${NS.main}/pods`;
  const logs: { message: string; fields?: Record<string, unknown> }[] = [];
  const informer = new Informer<{ rv: string }>({
    api: connect(),
    path,
    transform: (p) => ({ rv: (p as Obj).metadata.resourceVersion as string }),
    log: (message, fields) => logs.push({ message, fields }),
    watchSeconds: () => 3,
    random: () => 1,
    backoff: { initialMs: 500, maxMs: 4000 },
  });
  const t0 = new Date(Date.now() - 1000);
  try {
    await informer.start();
    assert.equal(informer.items.size, 1083);
    const lists = audited(t0, path).filter((e) => e.verb === 'list');
    assert.deepEqual(
      lists.map((e) => [e.query.get('limit'), e.query.has('continue')]),
      [
        ['500', false],
        ['500', true],
        ['500', true],
      ],
      'one list in three pages',
    );

    // The apiserver ends each watch after 3 s; the informer resumes from the last resourceVersion, without listing.
    await waitFor('three watches', async () => audited(t0, path).filter((e) => e.verb === 'watch').length >= 3 || undefined, 30_000, 500);
    const watches = audited(t0, path).filter((e) => e.verb === 'watch');
    for (const w of watches) {
      assert.equal(w.query.get('allowWatchBookmarks'), 'true');
      assert.equal(w.query.get('timeoutSeconds'), '3');
      assert.match(w.query.get('resourceVersion') ?? '', /^\d+$/);
    }
    assert.equal(audited(t0, path).filter((e) => e.verb === 'list').length, 3, 'no list while watches come and go');
    await createPods(NS.main, 'current', 5);
    await waitFor('the new pods in the store', async () => informer.items.size === 1088 || undefined, 30_000, 200);

    // Down, etcd moves on, up: the watch is retried with back-off, then 410 Gone, one list.
    let downSince = new Date();
    state = await restartApiserver(state, {
      whileDown: async () => {
        downSince = new Date();
        await waitFor(
          'four failed watch attempts',
          async () => logs.filter((l) => l.message.startsWith('watch could not start')).length >= 4 || undefined,
          60_000,
          200,
        );
        await bumpEtcdRevision(state);
      },
    });
    await waitFor('the relist after 410', async () => informer.stats.lists.expired === 1 || undefined, 60_000, 200);
    await new Promise((r) => setTimeout(r, 8000));
    const delays = logs.filter((l) => l.message.startsWith('watch could not start')).map((l) => l.fields?.inMs as number);
    assert.deepEqual(delays.slice(0, 4), [500, 1000, 2000, 4000], 'a doubling back-off while the apiserver is away');
    assert.ok(
      delays.every((d) => d <= 4000),
      'capped',
    );
    assert.deepEqual(informer.stats.lists, { start: 1, expired: 1, error: 0, resync: 0 });
    const after = audited(downSince, path);
    assert.equal(after.filter((e) => e.verb === 'list' && !e.query.has('continue')).length, 1, 'exactly one list after the restart');
    assert.equal(logs.filter((l) => l.message.includes('410')).length, 1);
    assert.equal(informer.items.size, 1088);
  } finally {
    informer.stop();
  }
});

test('30.2: serve --reconcile through an apiserver stop and start: no crash, counts right, one list per collection, no Event twice', async (t) => {
  const port = await freePort();
  const monitoring = await freePort();
  const child = spawn(
    process.execPath,
    [
      cliPath(),
      'serve',
      '--port',
      String(port),
      '--address',
      '127.0.0.1',
      '--monitoring-port',
      String(monitoring),
      '--reconcile',
      '--reconcile-namespace',
      NS.main,
      NS.skip,
      '--reconcile-lease-namespace',
      NS.main,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let out = '';
  const collect = (c: Buffer): void => {
    out = (out + c.toString()).slice(-200_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const gauge = async (): Promise<Record<string, number>> => {
    const text = await (await fetch(`http://127.0.0.1:${monitoring}/metrics`)).text();
    return Object.fromEntries([...text.matchAll(/^sidecar_injector_pods\{state="(\w+)"\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
  };
  let seen: unknown;
  const counted = async (): Promise<boolean> => JSON.stringify((seen = await gauge().catch(() => ({})))) === JSON.stringify(expected);
  const countsAre = (what: string): Promise<true> =>
    waitFor(what, async () => (await counted()) || undefined, 120_000, 500).catch((err: unknown) =>
      assert.fail(`${String(err)}; the gauge said ${JSON.stringify(seen)}; serve:\n${out.slice(-3000)}`),
    );
  await countsAre(`the counts ${JSON.stringify(expected)}`);
  const ours = async (): Promise<Obj[]> =>
    ((await getJson(['-n', NS.main, 'events'])).items as Obj[]).filter((e) => e.reportingComponent === 'sidecar-injector');
  // 10 stale and 10 missing bare pods, and the Deployment: 21 Events (under the recorder's burst).
  await waitFor('21 Events', async () => (await ours()).length === 21 || undefined, 60_000, 500);

  const restartedAt = new Date();
  state = await restartApiserver(state, { whileDown: async () => void (await bumpEtcdRevision(state)) });
  // Changes right after the restart: the reconciler must see them, whichever way it resumes.
  const fresh = await createPods(NS.main, 'missing', 2);
  const gone = ((await getJson(['-n', NS.main, 'pods'])).items as Obj[]).filter((p) => p.metadata.name.startsWith('p-current-')).slice(0, 3);
  for (const p of gone) await kubectl(['-n', NS.main, 'delete', 'pod', p.metadata.name, '--wait=false']);
  expected.current -= gone.length;
  await countsAre(`the counts after the restart ${JSON.stringify(expected)}`);
  await waitFor("the new pods' Events", async () => (await ours()).length === 23 || undefined, 60_000, 500);
  await new Promise((r) => setTimeout(r, 5000));

  assert.equal(child.exitCode, null, `serve is still running:\n${out.slice(-3000)}`);
  assert.doesNotMatch(out, /uncaught|unhandled|FATAL/i);
  const events = await ours();
  const byTarget = new Map<string, number>();
  for (const e of events)
    byTarget.set(
      `${e.involvedObject.kind}/${e.involvedObject.name} ${e.reason}`,
      (byTarget.get(`${e.involvedObject.kind}/${e.involvedObject.name} ${e.reason}`) ?? 0) + 1,
    );
  assert.deepEqual(
    [...byTarget].filter(([, n]) => n > 1),
    [],
    'no Event twice',
  );
  for (const name of fresh) assert.ok(byTarget.has(`Pod/${name} SidecarMissing`), `an Event for ${name}`);
  assert.ok(byTarget.has('Deployment/web SidecarMissing'));

  // One list per collection after the restart (the resumed watches' 410, or a new leadership's start).
  for (const path of [
    `/api/v1/namespaces/${NS.main}/pods`,
    `/api/v1/namespaces/${NS.skip}/pods`,
    `/apis/apps/v1/namespaces/${NS.main}/replicasets`,
    `/apis/batch/v1/namespaces/${NS.skip}/jobs`,
    '/api/v1/namespaces',
  ]) {
    const lists = audited(restartedAt, path).filter((e) => e.verb === 'list' && !e.query.has('continue'));
    assert.equal(lists.length, 1, `${path}: ${lists.length} lists after the restart`);
  }
  // Which way it went (the Lease lost during the outage: a new start; kept: the watches' 410).
  const metrics = await (await fetch(`http://127.0.0.1:${monitoring}/metrics`)).text();
  t.diagnostic([...metrics.matchAll(/^sidecar_injector_reconcile_lists_total\{(.*)\} (\d+)$/gm)].map((m) => `${m[1]}: ${m[2]}`).join('; '));
  child.kill('SIGTERM');
  const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  assert.equal(code, 0, out.slice(-2000));
});
