import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReloader, type CheckResult } from './file-reloader.js';
import { configSnapshot } from './sources.js';
import { watchDirectories } from './dir-watcher.js';
import { atomicWrite } from '../../test/support/atomic-writer.js';
import { captureLogger } from '../../test/support/logs.js';
import { createMetrics } from '../telemetry/metrics.js';
import { ConfigError } from '../errors.js';

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'reload-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function waitFor(pred: () => boolean, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const tick = (): void => {
      if (pred()) resolve();
      else if (Date.now() > until) reject(new Error('condition not reached in time'));
      else setTimeout(tick, 10);
    };
    tick();
  });
}

/** A reloader over `dir/config` holding JSON {"v": number}. */
async function numberReloader(dir: string, options: { pollMs?: number; debounceMs?: number } = {}) {
  let current: number | undefined;
  let applied = 0;
  const { logger, lines } = captureLogger('info');
  const metrics = createMetrics({ processMetrics: false });
  const reloader = createReloader({
    kind: 'config',
    dirs: [dir],
    snapshot: () => configSnapshot(dir),
    load: async () => {
      const { readFile } = await import('node:fs/promises');
      const value = JSON.parse(await readFile(join(dir, 'config'), 'utf8')) as { v?: unknown };
      if (typeof value.v !== 'number') throw new ConfigError('SI_CONFIG_INVALID', 'v must be a number');
      return value.v;
    },
    apply: (v: number) => {
      current = v;
      applied++;
    },
    describe: (v) => ({ v }),
    debounceMs: options.debounceMs ?? 30,
    pollMs: options.pollMs ?? 60_000,
    logger,
    metrics,
  });
  return { reloader, get: () => current, applied: () => applied, lines, metrics };
}

test('a ConfigMap-style ..data swap is picked up by the directory watch (no polling)', async (t) => {
  const dir = await tempDir(t);
  await atomicWrite(dir, { config: '{"v":1}' });
  const r = await numberReloader(dir, { pollMs: 0 });
  t.after(() => r.reloader.close());
  await r.reloader.start();
  assert.equal(r.get(), 1);
  await atomicWrite(dir, { config: '{"v":2}' });
  await waitFor(() => r.get() === 2);
  await atomicWrite(dir, { config: '{"v":3}' });
  await waitFor(() => r.get() === 3, 3000);
  assert.equal(r.reloader.status().reloads, 2);
});

test('a bad version keeps the last good one, is counted once however often it is seen, and clears when fixed', async (t) => {
  const dir = await tempDir(t);
  await atomicWrite(dir, { config: '{"v":1}' });
  const r = await numberReloader(dir, { pollMs: 0 });
  t.after(() => r.reloader.close());
  await r.reloader.start();
  await atomicWrite(dir, { config: '{"v":' });
  const outcomes: CheckResult[] = [];
  for (let i = 0; i < 5; i++) outcomes.push(await r.reloader.check('poll'));
  assert.equal(r.get(), 1);
  assert.equal(outcomes.filter((o) => o === 'failed').length <= 1, true);
  const status = r.reloader.status();
  assert.equal(status.failures, 1);
  assert.match(status.lastError?.message ?? '', /JSON|Unexpected/);
  assert.match((await r.metrics.render()).body, /sidecar_injector_reloads_total\{kind="config",result="failure"\} 1/);
  assert.ok(r.lines.some((l) => l.level === 'error' && String(l.msg).includes('last good')));
  for (const bad of ['', '{"v":"x"}']) {
    await atomicWrite(dir, { config: bad });
    await r.reloader.check('poll');
    assert.equal(r.get(), 1);
  }
  await rm(join(dir, 'config'));
  assert.equal(await r.reloader.check('poll'), 'failed', 'a deleted file is a failure, not a crash');
  assert.equal(r.get(), 1);
  await atomicWrite(dir, { config: '{"v":7}' });
  assert.equal(await r.reloader.check('poll'), 'reloaded');
  assert.equal(r.get(), 7);
  assert.equal(r.reloader.status().lastError, undefined);
  assert.equal(r.reloader.status().failures, 4);
});

/**
 * A source whose load sees a mix of two versions when a write lands while it reads (what a
 * kubelet swap between reading tls.crt and tls.key, or two config files, looks like).
 */
function swappingReloader(swapsDuringLoad: number) {
  let version = 1;
  let swaps = 0;
  let current: number | undefined;
  const { logger } = captureLogger('info');
  const reloader = createReloader({
    kind: 'cert',
    dirs: [],
    snapshot: async () => ({ hash: `v${version}`, raw: version }),
    load: async (seen: number) => {
      if (seen > 1 && swaps < swapsDuringLoad) {
        swaps++;
        version++;
        throw new ConfigError('SI_CONFIG_INVALID', 'certificate and key do not match');
      }
      return seen;
    },
    apply: (v: number) => {
      current = v;
    },
    logger,
  });
  return {
    reloader,
    write: () => {
      version++;
    },
    get: () => current,
  };
}

test('a load that failed because its inputs changed meanwhile is not counted: the newer version is judged', async () => {
  const r = swappingReloader(1);
  await r.reloader.start();
  r.write();
  assert.equal(await r.reloader.check('poll'), 'reloaded');
  assert.equal(r.get(), 3, 'the version written during the read is the one served');
  assert.deepEqual([r.reloader.status().failures, r.reloader.status().reloads], [0, 1]);
});

test('inputs that never settle are still judged: refused once after a bounded number of tries', async () => {
  const r = swappingReloader(Number.POSITIVE_INFINITY);
  await r.reloader.start();
  r.write();
  assert.equal(await r.reloader.check('poll'), 'failed');
  assert.equal(r.get(), 1, 'the last good version keeps serving');
  assert.equal(r.reloader.status().failures, 1);
});

test('unchanged content is not reloaded, however many events or polls arrive', async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'config'), '{"v":1}');
  const r = await numberReloader(dir);
  t.after(() => r.reloader.close());
  await r.reloader.start();
  for (let i = 0; i < 5; i++) assert.equal(await r.reloader.check('poll'), 'unchanged');
  await writeFile(join(dir, 'unrelated'), 'x'); // a new visible file changes the directory hash...
  await r.reloader.check('poll');
  assert.equal(r.applied(), 2, '...and a changed snapshot is loaded again');
});

test('polling alone finds a change the watch did not report', async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'config'), '{"v":1}');
  const r = await numberReloader(dir, { pollMs: 50, debounceMs: 10_000 });
  t.after(() => r.reloader.close());
  await r.reloader.start();
  await writeFile(join(dir, 'config'), '{"v":2}');
  await waitFor(() => r.get() === 2, 2000);
});

test('startup with an invalid config throws (there is no last good one)', async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'config'), 'nope');
  const r = await numberReloader(dir);
  await assert.rejects(r.reloader.start());
  r.reloader.close();
});

test('concurrent checks never overlap and the latest content wins', async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'config'), '{"v":1}');
  const r = await numberReloader(dir);
  t.after(() => r.reloader.close());
  await r.reloader.start();
  await writeFile(join(dir, 'config'), '{"v":2}');
  const a = r.reloader.check();
  await writeFile(join(dir, 'config'), '{"v":3}');
  const b = r.reloader.check();
  await Promise.all([a, b]);
  assert.equal(r.get(), 3);
});

test('the directory watcher is recreated after its directory is removed and recreated', async (t) => {
  const root = await tempDir(t);
  const dir = join(root, 'cfg');
  await mkdir(dir);
  let events = 0;
  const w = watchDirectories({ dirs: [dir], debounceMs: 10, pollMs: 0, retryMs: 50, onChange: (why) => why === 'event' && events++ });
  t.after(() => w.close());
  await rm(dir, { recursive: true });
  await new Promise((r) => setTimeout(r, 100));
  await mkdir(dir);
  await new Promise((r) => setTimeout(r, 200));
  const before = events;
  await writeFile(join(dir, 'x'), '1');
  await waitFor(() => events > before, 2000);
});
