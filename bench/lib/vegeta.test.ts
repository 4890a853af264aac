/**
 * vegeta as the benchmark's fixed-rate client for a list of bodies (bench/lib/vegeta.ts, load.ts
 * vegetaRate): the target file sends the list in order from the right body, vegeta's results
 * (nanoseconds, RFC 3339 timestamps) become the report's fixed-rate row, and, on loopback against
 * a recorder (short and bounded; skipped without vegeta), every body goes out in turn and the
 * measured run goes on where its warm-up stopped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeVariants } from '../fixtures.js';
import { vegetaRate } from './load.js';
import type { FixedRateResult } from './results.js';
import { listClientName, listClientText } from './report-parts.js';
import type { Rounds } from './types.js';
import { findVegeta, parseVegetaJson, rfc3339Ms, summarizeVegeta, vegetaAttackArgs, vegetaTargets } from './vegeta.js';
import { uidRecorder } from '../../test/support/uid-recorder.js';

/** The targets of a target file: [method and URL, header, body file] each. */
const targetsOf = (text: string): string[][] =>
  text
    .split(/\n\s*\n/)
    .map((t) => t.split('\n').filter((l) => l !== ''))
    .filter((t) => t.length > 0);

test("vegeta's target file sends the list in order from the given body, wrapping round", () => {
  const files = ['/b/0.json', '/b/1.json', '/b/2.json', '/b/3.json'];
  const url = 'https://127.0.0.1:8443/inject?timeout=10s';
  const from0 = targetsOf(vegetaTargets(url, files, 0));
  assert.deepEqual(from0[0], [`POST ${url}`, 'Content-Type: application/json', '@/b/0.json']);
  assert.deepEqual(
    from0.map((t) => t[2]),
    ['@/b/0.json', '@/b/1.json', '@/b/2.json', '@/b/3.json'],
  );
  // A warm-up that sent 7 requests stopped after body 2: the measured run starts at body 3.
  assert.deepEqual(
    targetsOf(vegetaTargets(url, files, 7)).map((t) => t[2]),
    ['@/b/3.json', '@/b/0.json', '@/b/1.json', '@/b/2.json'],
  );
  assert.throws(() => vegetaTargets(url, [], 0), /no bodies/);
  assert.throws(() => vegetaTargets(url, ['/b/a\nGET http://x/'], 0), /cannot name/);
});

test('the attack keeps the connection count, HTTP/1.1 keep-alive and an unbounded worker pool', () => {
  const args = vegetaAttackArgs({ targets: 't', output: 'o', rate: 1000, connections: 10, seconds: 0.5 });
  for (const a of ['-rate=1000/1s', '-duration=0.5s', '-http2=false', '-keepalive=true', '-connections=10', '-max-connections=10', '-workers=10'])
    assert.ok(args.includes(a), a);
  // A capped pool would hold requests back when the server is slow and leave that out of their latency.
  assert.ok(!args.some((a) => a.startsWith('-max-workers')));
});

test("vegeta's timestamps keep their sub-millisecond part, in any offset", () => {
  // Microseconds survive (a double holds ms since the epoch to about 0.25 µs).
  assert.ok(Math.abs(rfc3339Ms('2026-11-27T14:50:01.123456789Z') - Date.parse('2026-11-27T14:50:01Z') - 123.456789) < 0.001);
  assert.equal(rfc3339Ms('2026-11-27T15:50:01.5+01:00'), Date.parse('2026-11-27T14:50:01.500Z'));
  assert.equal(rfc3339Ms('2026-11-27T14:50:01Z'), Date.parse('2026-11-27T14:50:01Z'));
  assert.ok(Number.isNaN(rfc3339Ms('yesterday')));
});

/** One line of `vegeta encode -to=json`. */
const line = (startS: number, latencyNs: number, code = 200, error = ''): string =>
  JSON.stringify({
    attack: '',
    seq: 0,
    code,
    timestamp: `2026-11-27T14:50:0${Math.floor(startS)}.${String(Math.round((startS % 1) * 1e9)).padStart(9, '0')}Z`,
    latency: latencyNs,
    bytes_out: 6900,
    bytes_in: 300,
    error,
    body: null,
    method: 'POST',
    url: 'https://127.0.0.1:1/inject',
    headers: {},
  });

test("vegeta's results become the fixed-rate row: nanoseconds to ms, failures counted, the rate from answers within the window", () => {
  // 100 requests over 1 s at 100/s, request i sent at 10 i ms and answered after i + 1 ms;
  // two of them fail (an HTTP 503, a refused connection).
  const rows: string[] = [];
  for (let i = 0; i < 100; i++) rows.push(line(i / 100, (i + 1) * 1e6, i === 10 ? 503 : 200, i === 20 ? 'dial tcp: connection refused' : ''));
  rows[20] = line(0.2, 5e6, 0, 'dial tcp: connection refused');
  const parsed = parseVegetaJson(`${rows.join('\n')}\n`);
  assert.equal(parsed.length, 100);
  assert.equal(parsed[3].latencyMs, 4);
  const { result, late, problems } = summarizeVegeta(parsed, { rate: 100, durationS: 1 });
  assert.equal(result.count, 100);
  assert.equal(result.non200, 2);
  assert.deepEqual(problems.sort(), ['HTTP 503', 'dial tcp: connection refused']);
  assert.equal(result.maxMs, 100);
  assert.equal(result.p50Ms, 51, 'median of the 98 answered: 1..100 ms without 11 and 21');
  // Answer i ends at 11 i + 1 ms: after the 1,000 ms window from i = 91 on (9 answers).
  assert.equal(late, 9);
  assert.equal(result.achievedRps, 89);
});

test('a results line that is not a vegeta result is an error, not a silent zero', () => {
  assert.throws(() => parseVegetaJson('{"code":200,"latency":"1ms","timestamp":"2026-11-27T14:50:01Z"}\n'), /line 1/);
  assert.throws(() => parseVegetaJson(`${line(0, 1e6)}\n[]\n`), /line 2/);
});

test('the report names the client each every-pod-new fixed-rate row ran with, vegeta or the Node fallback', () => {
  const fr = (tool: string): FixedRateResult => ({
    targetRps: 1000,
    achievedRps: 1000,
    count: 3000,
    non200: 0,
    p50Ms: 1,
    p90Ms: 1,
    p99Ms: 2,
    p999Ms: 3,
    maxMs: 4,
    serverCpu: 0.5,
    tool,
  });
  const rounds = (...tools: string[]): Rounds<FixedRateResult> => ({
    rounds: tools.map((t) => ({ anchor: fr(t), 'ours-new': fr(t) })),
    vsAnchor: {},
    anchorSpread: 0,
    flagged: false,
  });
  const vegetaTool = 'vegeta v12.12.0 open loop, 512 bodies in turn';
  const nodeTool = 'node open loop (child process), 512 bodies in turn';
  assert.equal(listClientName(rounds(vegetaTool, vegetaTool)), 'vegeta open loop');
  assert.match(listClientText(rounds(vegetaTool)), /^vegeta \(a Go open-loop load generator\)/);
  assert.equal(listClientName(rounds(nodeTool)), 'Node open loop');
  assert.match(listClientText(rounds(nodeTool)), /^the Node open-loop client in a child process/);
  assert.equal(listClientName(rounds(vegetaTool, nodeTool)), 'vegeta and Node open loop');
  assert.match(listClientText(rounds(vegetaTool, nodeTool)), /^vegeta in some rounds, the Node client in others/);
});

const vegeta = findVegeta();

test('vegeta sends every listed body in turn, and its measured run goes on where the warm-up stopped', {
  skip: vegeta ? false : 'vegeta not installed (npm run bench installs it with go install)',
}, async () => {
  const rec = await uidRecorder('https');
  const { dir, uids } = rec;
  try {
    const v = writeVariants(dir, 7)['F1-new'];
    const r = await vegetaRate(vegeta!, { name: 'recorder', port: rec.port, pid: process.pid, path: '/inject' }, v, {
      rate: 50,
      connections: 1,
      warmupS: 0.3,
      durationS: 0.5,
      workDir: dir,
    });
    assert.match(r.tool, /^vegeta .*7 bodies in turn/);
    assert.equal(r.non200, 0);
    assert.ok(r.count >= 15, `${r.count} requests measured`);
    assert.ok(uids.length >= r.count + 8, `${uids.length} requests in all: the warm-up's too`);
    // One connection: warm-up and measured run together are one unbroken cycle through the bodies.
    assert.deepEqual(
      uids,
      uids.map((_, k) => v.uids[k % 7]),
    );
  } finally {
    rec.close();
  }
});
