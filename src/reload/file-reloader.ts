/**
 * @module reload/file-reloader
 * The one reload loop shared by config and certificates: on a directory event or a poll tick,
 * read the inputs through their visible paths, compare a sha256 of the bytes with the last
 * seen, and only when they changed parse + validate and swap in one assignment. A bad version
 * (unparsable, invalid, half-written, missing) keeps the last good one serving; it is logged and
 * counted once per distinct content, not once per poll, and stays visible in `status()` until
 * a good version replaces it. Checks never overlap: a change during a check runs one more.
 */
import { createHash } from 'node:crypto';
import type { Logger } from '../telemetry/log.js';
import type { ReloadKind, WebhookMetrics } from '../telemetry/metrics.js';
import { watchDirectories, type ChangeTrigger, type DirWatcher } from './dir-watcher.js';

export interface Snapshot<R> {
  /** sha256 (hex) of everything the load will read: tells changes apart. */
  hash: string;
  /** What `status()` (so `/readyz`) shows instead of `hash`, when that covers secrets. */
  shownHash?: string;
  raw: R;
}

export interface ReloaderOptions<R, T> {
  kind: ReloadKind;
  /** Directories to watch. */
  dirs: readonly string[];
  /** Read the inputs (throw when unreadable). */
  snapshot: () => Promise<Snapshot<R>>;
  /** Parse and validate; throw (with a message a user can act on) to refuse. */
  load: (raw: R) => Promise<T>;
  /** Swap the new value in. Must not throw. */
  apply: (value: T) => void;
  /** Log fields describing a loaded value (hash, expiry, ...). */
  describe?: (value: T) => Record<string, unknown>;
  debounceMs?: number;
  pollMs?: number;
  logger: Logger;
  metrics?: WebhookMetrics;
  /** Wall clock for `status()` timestamps. */
  clock?: () => Date;
}

interface ReloadStatus {
  /** sha256 of the input bytes currently served. */
  inputHash: string | undefined;
  loadedAt: string | undefined;
  /** The last refused version, until a good one replaces it. */
  lastError: { message: string; at: string } | undefined;
  reloads: number;
  failures: number;
}

export type CheckResult = 'unchanged' | 'reloaded' | 'failed';

export interface Reloader {
  /** Load the current inputs now; throws when they are unusable (startup has no last good). */
  start(): Promise<void>;
  /** Look for a change now (what events and polls do). */
  check(trigger?: ChangeTrigger | 'manual'): Promise<CheckResult>;
  status(): ReloadStatus;
  close(): void;
}

const DEFAULT_DEBOUNCE_MS = 150;
const DEFAULT_POLL_MS = 10_000;
/** How often a refused load is retried because its inputs changed while it read them. */
const MAX_UNSETTLED_TRIES = 3;

export function sha256(...parts: (string | Buffer)[]): string {
  const h = createHash('sha256');
  for (const p of parts) {
    h.update(p);
    h.update('\0');
  }
  return h.digest('hex');
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    const describe = (err as { describe?: () => string }).describe;
    return typeof describe === 'function' ? describe.call(err) : err.message;
  }
  return String(err);
}

export function createReloader<R, T>(options: ReloaderOptions<R, T>): Reloader {
  const { kind, logger, metrics } = options;
  const clock = options.clock ?? (() => new Date());
  let lastSeen: string | undefined;
  const state: ReloadStatus = { inputHash: undefined, loadedAt: undefined, lastError: undefined, reloads: 0, failures: 0 };
  let watcher: DirWatcher | undefined;
  let running: Promise<CheckResult> | undefined;
  let again = false;

  async function attempt(trigger: string, initial: boolean): Promise<CheckResult> {
    let snap: Snapshot<R>;
    let value: T;
    for (let tries = 1; ; tries++) {
      try {
        snap = await options.snapshot();
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        return refuse(`error:${code ?? errorMessage(err)}`, err, trigger, initial);
      }
      if (snap.hash === lastSeen) return 'unchanged';
      try {
        value = await options.load(snap.raw);
        break;
      } catch (err) {
        // Inputs that changed while they were read (a swap between reading two files) are a
        // mix of two versions, not a version: judge the newer one instead of refusing, logging
        // and counting a version nobody wrote. Bounded, so a directory that never settles is
        // still judged.
        if (tries < MAX_UNSETTLED_TRIES && (await changedSince(snap.hash))) continue;
        return refuse(snap.hash, err, trigger, initial);
      }
    }
    lastSeen = snap.hash;
    options.apply(value);
    state.inputHash = snap.shownHash ?? snap.hash;
    state.loadedAt = clock().toISOString();
    state.lastError = undefined;
    if (!initial) {
      state.reloads++;
      metrics?.reload(kind, 'success');
    } else metrics?.loaded(kind);
    logger.info({ subject: kind, trigger, ...options.describe?.(value) }, initial ? `${kind} loaded` : `${kind} reloaded`);
    return 'reloaded';
  }

  async function changedSince(hash: string): Promise<boolean> {
    try {
      return (await options.snapshot()).hash !== hash;
    } catch {
      return true;
    }
  }

  function refuse(hash: string, err: unknown, trigger: string, initial: boolean): CheckResult {
    if (initial) throw err;
    if (hash === lastSeen) return 'unchanged';
    lastSeen = hash;
    const message = errorMessage(err);
    state.failures++;
    state.lastError = { message, at: clock().toISOString() };
    metrics?.reload(kind, 'failure');
    logger.error(
      { subject: kind, trigger, error: message, code: (err as { code?: unknown }).code },
      `${kind} reload refused; the last good ${kind} keeps serving`,
    );
    return 'failed';
  }

  function check(trigger: ChangeTrigger | 'manual' = 'manual'): Promise<CheckResult> {
    if (running !== undefined) {
      again = true;
      return running;
    }
    const run = async (): Promise<CheckResult> => {
      let result: CheckResult;
      try {
        result = await attempt(trigger, false);
        while (again) {
          again = false;
          const next = await attempt(trigger, false);
          if (next !== 'unchanged') result = next;
        }
      } catch (err) {
        // attempt() only throws for the initial load; anything else is a bug worth a log line.
        logger.error({ subject: kind, error: errorMessage(err), stack: (err as Error).stack }, `${kind} reload check failed`);
        result = 'failed';
      } finally {
        running = undefined;
      }
      return result;
    };
    running = run();
    return running;
  }

  return {
    async start() {
      // Watch first: a change landing during the initial load is then not missed.
      watcher = watchDirectories({
        dirs: options.dirs,
        debounceMs: options.debounceMs ?? DEFAULT_DEBOUNCE_MS,
        pollMs: options.pollMs ?? DEFAULT_POLL_MS,
        onChange: (trigger) => void check(trigger),
        onWatchError: (dir, err) => logger.warn({ subject: kind, dir, error: err.message }, 'directory watch failed; recreating it (polling continues)'),
      });
      try {
        await attempt('startup', true);
      } catch (err) {
        watcher.close();
        throw err;
      }
    },
    check,
    status: () => ({ ...state, lastError: state.lastError && { ...state.lastError } }),
    close() {
      watcher?.close();
    },
  };
}
