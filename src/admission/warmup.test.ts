/**
 * The warm-up before ready (warmup.ts): it drives the three paths a real pod takes (an
 * injection, the reinvocation of the injected pod, an opted-out pod) through a real handler and
 * the real core; it stops at its time budget or when told to; a server started with it answers
 * `/healthz` at once, says not ready until it is done (or, as `serve` starts, until its first
 * round passed, the rest running while it serves), and nothing of it is counted or logged;
 * a reloaded config is warmed before it serves; a config the warm-up finds broken (it fails on
 * a plain Deployment pod for a reason of its own) never serves: a reload keeps the config it
 * had, a start stays unready until a working config is loaded; a pod-caused refusal of the
 * made-up pod is not taken for a broken config.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfig, loadConfig } from '../profiles/index.js';
import { injectPod } from '../inject/index.js';
import { createMetrics } from '../telemetry/metrics.js';
import { silentLogger } from '../telemetry/log.js';
import { realConfig, startHarness } from '../../test/support/webhook-harness.js';
import { decodePatch, parseReview, postReview, send } from '../../test/support/https-client.js';
import { createHandler, type AdmissionCall, type AdmissionReply } from './handler.js';
import { warmUp, warmupPod, warmupReview } from './warmup.js';

/** A real handler with the real core, recording what it answered (decision from the metrics). */
function recorded() {
  const config = defaultConfig();
  const metrics = createMetrics({ processMetrics: false });
  const handler = createHandler({ inject: injectPod, getConfig: () => config, metrics, logger: silentLogger() });
  const answers: { uid: string; patch: boolean; outcome: string }[] = [];
  const spy = (call: AdmissionCall): AdmissionReply => {
    const reply = handler(call);
    const body = JSON.parse(reply.body) as { response: { uid: string; patch?: string } };
    answers.push({ uid: body.response.uid, patch: body.response.patch !== undefined, outcome: reply.outcome });
    return reply;
  };
  return { config, metrics, spy, answers };
}

const counter = async (metrics: ReturnType<typeof createMetrics>, line: RegExp): Promise<number> => {
  const m = line.exec((await metrics.render()).body);
  return m === null ? 0 : Number(m[1]);
};

test('each round: an injection, the injected pod again (already current), an opted-out pod; every request its own uid', async () => {
  const r = recorded();
  const result = await warmUp(r.spy, r.config, { rounds: 20, maxMs: 60_000 });
  assert.deepEqual({ rounds: result.rounds, injected: result.injected, cutShort: result.cutShort }, { rounds: 20, injected: true, cutShort: false });
  assert.equal(r.answers.length, 60);
  for (let i = 0; i < 20; i++) {
    assert.deepEqual(
      r.answers.slice(3 * i, 3 * i + 3).map((a) => [a.outcome, a.patch]),
      [
        ['injected', true],
        ['skipped', false],
        ['skipped', false],
      ],
      `round ${i}`,
    );
  }
  assert.equal(new Set(r.answers.map((a) => a.uid)).size, 60);
  assert.equal(
    await counter(r.metrics, /^sidecar_injector_skips_total\{reason="already-injected"\} (\d+)/m),
    20,
    'the second review is a reinvocation of a current pod',
  );
  assert.equal(await counter(r.metrics, /^sidecar_injector_skips_total\{reason="explicit-disabled"\} (\d+)/m), 20);
});

test('the warm-up pods differ as real replicas do (token volume name), so the warm-up meets what real pods meet', () => {
  const a = warmupReview(warmupPod(1, 'k', 'true'), 1).toString();
  const b = warmupReview(warmupPod(9, 'k', 'true'), 1).toString();
  assert.notEqual(a, b);
  assert.match(a, /kube-api-access-[a-z]{5}/);
  assert.equal(
    a
      .replace(/kube-api-access-[a-z]{5}/g, 'T')
      .replace(/warmup-\d/g, 'W')
      .replace(/:1\.\d"/g, ''),
    b
      .replace(/kube-api-access-[a-z]{5}/g, 'T')
      .replace(/warmup-\d/g, 'W')
      .replace(/:1\.\d"/g, ''),
  );
});

test('it stops at its time budget and when aborted, and says so', async () => {
  const r = recorded();
  let t = 0;
  const clock = () => (t += 10);
  const timed = await warmUp(r.spy, r.config, { rounds: 1000, maxMs: 100 }, clock);
  assert.equal(timed.cutShort, true);
  assert.ok(timed.rounds > 0 && timed.rounds < 1000, `${timed.rounds} rounds`);
  const stop = new AbortController();
  stop.abort();
  const aborted = await warmUp(r.spy, r.config, { rounds: 1000, maxMs: 60_000, signal: stop.signal });
  assert.deepEqual([aborted.rounds, aborted.cutShort], [0, true]);
});

test('a server with a warm-up: /healthz at once, /readyz 503 until warm, then 200; nothing of it counted or logged', async (t) => {
  const metrics = createMetrics({ processMetrics: false });
  const h = await startHarness({ metrics, warmup: { rounds: 200, maxMs: 60_000 } });
  t.after(() => h.server.shutdown());
  assert.equal((await send({ port: h.port, path: '/healthz' })).status, 200);
  const first = await send({ port: h.port, path: '/readyz' });
  assert.equal(first.status, 503, 'not ready while warming');
  assert.equal((JSON.parse(first.body) as { warm: boolean }).warm, false);
  const deadline = Date.now() + 60_000;
  while ((await send({ port: h.port, path: '/readyz' })).status !== 200) {
    assert.ok(Date.now() < deadline, 'ready within a minute');
    await new Promise((r) => setTimeout(r, 20));
  }
  const ready = JSON.parse((await send({ port: h.port, path: '/readyz' })).body) as { warm: boolean; warmup: { rounds: number; injected: boolean } };
  assert.deepEqual([ready.warm, ready.warmup.rounds, ready.warmup.injected], [true, 200, true]);
  assert.equal(await counter(metrics, /^sidecar_injector_requests_total\{code="200"\} (\d+)/m), 0, 'no request counted');
  assert.equal(h.logs.filter((l) => l.msg === 'admission').length, 0, 'no admission logged');
  assert.equal(h.logs.filter((l) => l.msg === 'request path warmed up' && l.trigger === 'startup').length, 1);
});

test('a reloaded config is warmed before it serves', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'warmup-reload-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'config.yaml');
  const template = (image: string) => `templates:\n  sidecar: |\n    spec:\n      containers:\n      - name: proxy\n        image: ${image}\n`;
  await writeFile(file, template('a:1'));
  await loadConfig(file);
  const h = await startHarness({ config: realConfig(file), warmup: { rounds: 20, maxMs: 60_000 }, reload: { debounceMs: 10, pollMs: 0 } });
  t.after(() => h.server.shutdown());
  const deadline = Date.now() + 60_000;
  while (!h.server.isReady()) {
    assert.ok(Date.now() < deadline);
    await new Promise((r) => setTimeout(r, 20));
  }
  await writeFile(file, template('b:2'));
  await h.server.reloadNow();
  const reload = h.logs.find((l) => l.msg === 'request path warmed up' && l.trigger === 'reload');
  assert.ok(reload, 'warmed for the reload');
  const warmedAt = h.logs.indexOf(reload);
  const appliedAt = h.logs.findIndex((l, i) => i > warmedAt && l.subject === 'config' && l.trigger !== 'startup');
  assert.ok(appliedAt > warmedAt, `the config is applied after its warm-up: ${JSON.stringify(h.logs.map((l) => l.msg))}`);
});

/** A config file whose one template renders `line` into its container. */
const configWith = (line: string): string => `templates:\n  sidecar: |\n    spec:\n      containers:\n      - name: proxy\n        ${line}\n`;
const GOOD = (image: string) => configWith(`image: ${image}`);
// Parses and loads; fails on every pod (a field ObjectMeta does not have).
const BROKEN = configWith('image: "{{ .ObjectMeta.Nope.Deeper }}"');

async function configFile(t: { after: (f: () => Promise<void>) => void }, text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'warmup-broken-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'config.yaml');
  await writeFile(file, text);
  await loadConfig(file); // it is a valid config: only using it fails
  return file;
}

async function until(what: string, ok: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await ok())) {
    assert.ok(Date.now() < deadline, what);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The image our server injects into a pod now. */
async function injectedImage(port: number): Promise<unknown> {
  const patch = decodePatch(parseReview(await postReview(port, JSON.parse(warmupReview(warmupPod(0, 'sidecar.istio.io/inject', 'true'), 7).toString()))));
  const ops = patch as { path: string; value: { name?: string; image?: string } }[];
  return ops.find((o) => o.value?.name === 'proxy')?.value.image;
}

test('with readyAfter (serve at start): ready after the first round, the rest run while it serves, and a real pod meanwhile gets its patch', async (t) => {
  const file = await configFile(t, GOOD('w:1'));
  const metrics = createMetrics({ processMetrics: false });
  const h = await startHarness({ metrics, config: realConfig(file), warmup: { rounds: 3000, maxMs: 60_000, readyAfter: 1 } });
  t.after(() => h.server.shutdown());
  const warmed = () => h.logs.some((l) => l.msg === 'request path warmed up');
  await until('ready', () => h.server.isReady());
  assert.equal(warmed(), false, 'ready before the 3,000 rounds are done');
  const ready = JSON.parse((await send({ port: h.port, path: '/readyz' })).body) as { warm: boolean };
  assert.equal(ready.warm, true);
  assert.equal(await injectedImage(h.port), 'w:1', 'a real pod during the warm-up is injected');
  await until('the warm-up goes on to its last round', warmed);
  const done = h.logs.find((l) => l.msg === 'request path warmed up') as { rounds: number; cutShort: boolean };
  assert.deepEqual([done.rounds, done.cutShort], [3000, false]);
  assert.ok(h.server.isReady());
  assert.equal(await counter(metrics, /^sidecar_injector_requests_total\{code="200"\} (\d+)/m), 1, 'only the real request counted');
});

test('a reloaded config that fails its warm-up is refused: the one before keeps serving, the reload is reported failed', async (t) => {
  const file = await configFile(t, GOOD('a:1'));
  const metrics = createMetrics({ processMetrics: false });
  const h = await startHarness({ metrics, config: realConfig(file), warmup: { rounds: 20, maxMs: 60_000 }, reload: { debounceMs: 10, pollMs: 0 } });
  t.after(() => h.server.shutdown());
  await until('ready', () => h.server.isReady());
  await writeFile(file, BROKEN);
  await h.server.reloadNow();
  const refused = h.logs.find((l) => l.trigger === 'reload' && typeof l.failure === 'string');
  assert.ok(refused, `the warm-up says why: ${JSON.stringify(h.logs.map((l) => l.msg))}`);
  assert.match(String(refused.failure), /SI_TEMPLATE_EXEC.*Nope/);
  assert.equal(await counter(metrics, /^sidecar_injector_last_reload_successful\{kind="config"\} (\d+)/m), 0, 'the reload counts as failed');
  assert.ok(h.server.isReady(), 'still ready: the config it had serves');
  assert.equal(await injectedImage(h.port), 'a:1');
  // A working config after it is warmed and served.
  await writeFile(file, GOOD('b:2'));
  await h.server.reloadNow();
  assert.equal(await injectedImage(h.port), 'b:2');
});

test('a config that fails its warm-up at start: never ready while it is loaded; a working config reloaded makes it ready', async (t) => {
  const file = await configFile(t, BROKEN);
  // As serve starts: ready after the first round, which is the one that fails.
  const h = await startHarness({ config: realConfig(file), warmup: { rounds: 20, maxMs: 60_000, readyAfter: 1 }, reload: { debounceMs: 10, pollMs: 0 } });
  t.after(() => h.server.shutdown());
  await until('the warm-up ends', () => h.logs.some((l) => l.trigger === 'startup' && (l.failure !== undefined || l.msg === 'request path warmed up')));
  const readyz = await send({ port: h.port, path: '/readyz' });
  assert.equal(readyz.status, 503);
  assert.match((JSON.parse(readyz.body) as { warmup: { failure: string } }).warmup.failure, /SI_TEMPLATE_EXEC/);
  assert.equal(h.server.isReady(), false);
  await writeFile(file, GOOD('c:3'));
  await h.server.reloadNow();
  await until('ready on the working config', () => h.server.isReady());
  assert.equal(await injectedImage(h.port), 'c:3');
});

test('a refusal caused by the made-up pod (a port it shares with the sidecar) is not a broken config', async (t) => {
  // The warm-up pod's app listens on 8080: the sidecar below conflicts with it (HTTP 400, the pod's).
  const file = await configFile(t, configWith('image: p:1\n        ports: [{containerPort: 8080}]'));
  const h = await startHarness({ config: realConfig(file), warmup: { rounds: 20, maxMs: 60_000 } });
  t.after(() => h.server.shutdown());
  await until('ready', () => h.server.isReady());
  assert.equal(h.logs.filter((l) => l.failure !== undefined).length, 0);
});
