import { test } from 'node:test';
import assert from 'node:assert/strict';
import { batchedSink, clip, isoTimeCached } from './log.js';

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

test('batchedSink: the first line after a quiet spell goes out on the next turn, a burst right after waits for the interval', async () => {
  const writes: string[] = [];
  const sink = batchedSink((t) => writes.push(t), 64 * 1024, 60_000);
  sink.write('a\n');
  assert.deepEqual(writes, [], 'nothing is written synchronously');
  await turn();
  assert.deepEqual(writes, ['a\n']);
  sink.write('b\n');
  sink.write('c\n');
  await turn();
  await turn();
  assert.deepEqual(writes, ['a\n'], 'within the interval of the last write, lines are held');
  sink.flush();
  assert.deepEqual(writes, ['a\n', 'b\nc\n'], 'flush writes the rest in one write');
  sink.flush();
  assert.equal(writes.length, 2, 'an empty flush writes nothing');
});

test('batchedSink: a full buffer is written at once', () => {
  const writes: string[] = [];
  const sink = batchedSink((t) => writes.push(t), 10, 60_000);
  sink.write('12345');
  sink.write('678901');
  assert.deepEqual(writes, ['12345678901']);
});

test('batchedSink: with a zero interval every turn writes what came in it', async () => {
  const writes: string[] = [];
  const sink = batchedSink((t) => writes.push(t), 64 * 1024, 0);
  sink.write('a\n');
  sink.write('b\n');
  await turn();
  sink.write('c\n');
  await turn();
  assert.deepEqual(writes, ['a\nb\n', 'c\n']);
});

test('clip bounds and repairs user strings for logs', () => {
  assert.equal(clip('x'.repeat(300))?.length, 257);
  assert.equal(clip('a\ud800b'), 'a\ufffdb');
  assert.equal(clip(42), undefined);
});

test("isoTimeCached writes pino's isoTime field, formatted once per millisecond", () => {
  let now = Date.UTC(2026, 10, 25, 15, 40, 0, 123);
  const time = isoTimeCached(() => now);
  assert.equal(time(), ',"time":"2026-11-25T15:40:00.123Z"');
  assert.equal(time(), ',"time":"2026-11-25T15:40:00.123Z"');
  now += 1;
  assert.equal(time(), ',"time":"2026-11-25T15:40:00.124Z"');
  const real = isoTimeCached();
  const line = JSON.parse(`{"a":1${real()}}`) as { time: string };
  assert.ok(Math.abs(Date.parse(line.time) - Date.now()) < 60_000);
});
