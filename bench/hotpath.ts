/**
 * @module bench/hotpath
 * Where a webhook request's CPU goes outside the injection core, in-process and without HTTP
 * (so the numbers hold on a shared machine better than a load test): the admission handler for
 * F1 and F2, with the per-admission log line on (info) and off (warn), and the stages alone: JSON
 * parse with its guards, the response serialisation, one info line. Each figure is the median of `--batches` batches, in µs per call.
 * HTTP and TLS costs are what the anchor measures; see bench/profile.ts for the whole server.
 *
 *   npx tsx bench/hotpath.ts [--batches 9] [--ms 200]
 */
import { writeSync, openSync } from 'node:fs';
import { defaultConfig } from '../src/profiles/index.js';
import { injectPod } from '../src/inject/index.js';
import { StatusKeys } from '../src/inject/status-mac.js';
import { createHandler, type AdmissionCall } from '../src/admission/handler.js';
import { parseJsonGuarded } from '../src/admission/json-guard.js';
import { serializeReview, patched } from '../src/admission/responses.js';
import { batchedSink, createLogger, type LogLevel } from '../src/telemetry/log.js';
import { createMetrics } from '../src/telemetry/metrics.js';
import { reviewBodies } from './fixtures.js';
import { cpuUs, median } from './lib/stats.js';
import { recordLoad } from './lib/quiet.js';

recordLoad();

const argv = process.argv.slice(2);
const num = (flag: string, fallback: number): number => (argv.includes(flag) ? Number(argv[argv.indexOf(flag) + 1]) : fallback);
const BATCHES = num('--batches', 9);
const BATCH_MS = num('--ms', 200);

/** CPU µs per call: median over batches of about BATCH_MS of CPU each. */
function perCall(fn: (i: number) => void): number {
  let n = 0;
  const t0 = cpuUs();
  while (cpuUs() - t0 < 50_000) fn(n++);
  const calls = Math.max(1, Math.round((n * BATCH_MS) / 50));
  const xs: number[] = [];
  for (let b = 0; b < BATCHES; b++) {
    const s = cpuUs();
    for (let i = 0; i < calls; i++) fn(n++);
    xs.push((cpuUs() - s) / calls);
  }
  return median(xs);
}

const devNull = openSync('/dev/null', 'w');

function handlerFor(level: LogLevel) {
  const sink = batchedSink((text) => void writeSync(devNull, text));
  const logger = createLogger({ level, destination: sink });
  const keys = new StatusKeys();
  keys.rotate(Buffer.alloc(32, 7));
  const config = defaultConfig();
  return createHandler({
    inject: injectPod,
    getConfig: () => config,
    logger,
    metrics: createMetrics({ processMetrics: false }),
    statusKeys: keys,
  });
}

/** The same body with uid number `i` (same length). */
function withUid(body: Buffer, i: number): Buffer {
  const copy = Buffer.from(body);
  const at = copy.indexOf('00000000-0000-4000-8000-');
  copy.write(String(i % 1e12).padStart(12, '0'), at + 24, 'latin1');
  return copy;
}

async function main(): Promise<void> {
  const bodies = await reviewBodies();
  const rows: [string, number][] = [];
  for (const f of ['F1', 'F2'] as const) {
    const variants = Array.from({ length: 64 }, (_, i) => withUid(bodies[f], i + 1));
    const call = (i: number): AdmissionCall => ({ body: variants[i % variants.length], path: '/inject', query: 'timeout=10s', startedAt: performance.now() });
    for (const level of ['info', 'warn'] as const) {
      const handler = handlerFor(level);
      rows.push([`${f} handler, log ${level}`, perCall((i) => handler(call(i)))]);
    }
    rows.push([`${f} parseJsonGuarded`, perCall((i) => parseJsonGuarded(variants[i % variants.length]))]);
    rows.push([`${f} JSON.parse alone`, perCall((i) => JSON.parse(variants[i % variants.length].toString('utf8')))]);
    const uidOf = (i: number): string => `00000000-0000-4000-8000-${String((i % variants.length) + 1).padStart(12, '0')}`;
    const result = injectPod(
      (JSON.parse(bodies[f].toString()) as { request: { object: unknown } }).request.object,
      { namespace: 'shop', mode: 'webhook' },
      defaultConfig(),
    );
    if (result.kind === 'injected') {
      const patch = result.patch;
      rows.push([`${f} serializeReview (patch text made once)`, perCall((i) => serializeReview('admission.k8s.io/v1', patched(uidOf(i), patch, [])))]);
      rows.push([`${f} JSON.stringify(patch) + base64`, perCall(() => Buffer.from(JSON.stringify(patch)).toString('base64'))]);
    }
  }
  const m = createMetrics({ processMetrics: false });
  rows.push([
    'metrics of one admission (in flight +1/-1, request, injected)',
    perCall(() => {
      m.inFlight(1);
      m.injected();
      m.inFlight(-1);
      m.request(200, 'injected', 0.0001);
    }),
  ]);
  const sink = batchedSink((text) => void writeSync(devNull, text));
  const logger = createLogger({ level: 'info', destination: sink });
  const fields = {
    uid: '00000000-0000-4000-8000-000000000001',
    namespace: 'shop',
    pod: 'checkout-7d9c6b5f4-x2x9q',
    kind: 'Pod',
    operation: 'CREATE',
    dryRun: false,
    durationMs: 0.123,
    decision: 'injected',
    reason: 'policy-enabled',
    patchOps: 7,
  };
  rows.push(['one admission info line (pino, 10 fields)', perCall(() => logger.info({ ...fields }, 'admission'))]);
  const child = logger.child({
    namespace: 'shop',
    pod: 'checkout-7d9c6b5f4-x2x9q',
    kind: 'Pod',
    operation: 'CREATE',
    dryRun: false,
    decision: 'injected',
    reason: 'policy-enabled',
    patchOps: 7,
  });
  rows.push(['one admission info line (pino child, 2 fields)', perCall(() => child.info({ uid: fields.uid, durationMs: 0.123 }, 'admission'))]);
  const quiet = createLogger({ level: 'warn', destination: sink });
  rows.push(['info line at level warn (object built, dropped)', perCall(() => quiet.info({ ...fields }, 'admission'))]);
  sink.flush();
  const w = Math.max(...rows.map(([k]) => k.length));
  process.stdout.write(`Node ${process.version}; median of ${BATCHES} batches of ~${BATCH_MS} ms of CPU; CPU µs per call (user + system)\n\n`);
  for (const [k, v] of rows) process.stdout.write(`${k.padEnd(w)}  ${v.toFixed(2).padStart(9)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`hotpath failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
