/**
 * @module telemetry/log
 * Structured JSON logs (pino): string levels, ISO timestamps, one flat object per line so log
 * pipelines can index `uid`, `namespace`, `decision` without parsing messages. The destination
 * is a parameter so tests and the in-process CLI can capture lines.
 */
import { pino, type Logger as PinoLogger, type DestinationStream } from 'pino';

export type Logger = PinoLogger;
import type { LogLevel } from './levels.js';

export { type LogLevel } from './levels.js';

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go; default stderr through an asynchronous buffered writer. */
  destination?: DestinationStream;
}

/**
 * pino's `isoTime` (`,"time":"2026-...Z"`), formatted once per millisecond: under load several
 * admission lines share a millisecond, and `toISOString` was a visible share of a cache hit.
 */
export function isoTimeCached(clock: () => number = Date.now): () => string {
  let last = Number.NaN;
  let text = '';
  return () => {
    const ms = clock();
    if (ms !== last) {
      last = ms;
      text = `,"time":"${new Date(ms).toISOString()}"`;
    }
    return text;
  };
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? pino.destination({ dest: 2, sync: false });
  return pino(
    {
      level: options.level ?? 'info',
      base: { component: 'sidecar-injector' },
      timestamp: isoTimeCached(),
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

export interface LineSink {
  write(line: string): void;
  /** Write out whatever is buffered, now. */
  flush(): void;
}

/**
 * Batch log lines: the first line after a quiet spell is written on the next event-loop turn;
 * under load, at most one write per `minIntervalMs` (or per 64 KiB), so one syscall carries many
 * admission lines instead of a few. Each write to a pipe or file cost about as much as the whole
 * line; `flush` writes out the rest (on shutdown).
 */
export function batchedSink(write: (text: string) => void, maxBuffered = 64 * 1024, minIntervalMs = 10): LineSink {
  let buffer = '';
  let scheduled = false;
  let lastWrite = -Infinity;
  const flush = (): void => {
    scheduled = false;
    if (buffer.length === 0) return;
    const text = buffer;
    buffer = '';
    lastWrite = performance.now();
    write(text);
  };
  return {
    write(line) {
      buffer += line;
      if (buffer.length >= maxBuffered) flush();
      else if (!scheduled) {
        scheduled = true;
        const wait = lastWrite + minIntervalMs - performance.now();
        if (wait <= 0) setImmediate(flush);
        else setTimeout(flush, wait);
      }
    },
    flush,
  };
}

/** A logger that drops everything (tests that do not look at logs). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Make a user-controlled string safe to log: bounded, and well-formed (a lone surrogate would
 * otherwise reach the log stream as is; JSON escaping already neutralises control bytes).
 */
export function clip(value: unknown, max = 256): string | undefined {
  if (typeof value !== 'string') return undefined;
  const short = value.length > max ? `${value.slice(0, max)}…` : value;
  return short.replace(LONE_SURROGATE, '\ufffd');
}
