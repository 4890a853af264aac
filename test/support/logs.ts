/**
 * @module test/support/logs
 * Capture the webhook's JSON log lines in memory, parsed back to objects, for assertions.
 */
import { createLogger, type Logger, type LogLevel } from '../../src/telemetry/log.js';

export interface CapturedLogs {
  readonly logger: Logger;
  /** Parsed lines. */
  readonly lines: Record<string, unknown>[];
  /** The exact text written (to check what reaches a log pipeline byte for byte). */
  readonly raw: string[];
}

export function captureLogger(level: LogLevel = 'debug'): CapturedLogs {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const logger = createLogger({
    level,
    destination: {
      write: (s: string) => {
        raw.push(s);
        lines.push(JSON.parse(s) as Record<string, unknown>);
      },
    },
  });
  return { logger, lines, raw };
}
