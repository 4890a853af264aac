/**
 * @module testing/logs
 * Capture the webhook's JSON log lines in memory, parsed back to objects, for assertions.
 */
import { createLogger, type Logger, type LogLevel } from '../telemetry/log.js';

export interface CapturedLogs {
  readonly logger: Logger;
  readonly lines: Record<string, unknown>[];
}

export function captureLogger(level: LogLevel = 'debug'): CapturedLogs {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level,
    destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) },
  });
  return { logger, lines };
}
