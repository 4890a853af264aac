/**
 * @module reload/dir-watcher
 * Tell a callback when something in a directory may have changed. Watches the *directory*,
 * not the files: a mounted ConfigMap or Secret updates by renaming a `..data` symlink onto a
 * new timestamped directory, which a watch on the old file never sees (and `fs.watch` on a
 * file dies when its directory is deleted). Events are debounced (the kubelet's swap is several
 * renames); a poll timer is the safety net for lost events (controller-runtime lost its watch
 * on file deletion, #2182), and the watcher is recreated after errors. Timers are unref'd:
 * a watcher never keeps the process alive on its own.
 */
import { watch, type FSWatcher } from 'node:fs';

export type ChangeTrigger = 'event' | 'poll';

export interface DirWatcherOptions {
  dirs: readonly string[];
  /** Quiet time after the last event before `onChange` runs. */
  debounceMs: number;
  /** `onChange('poll')` every this many ms, events or not; 0 disables polling. */
  pollMs: number;
  onChange: (trigger: ChangeTrigger) => void;
  /** A watcher failed (it is recreated on the next poll tick or after `retryMs`). */
  onWatchError?: (dir: string, err: Error) => void;
  retryMs?: number;
}

export interface DirWatcher {
  close(): void;
}

export function watchDirectories(options: DirWatcherOptions): DirWatcher {
  const { debounceMs, pollMs, onChange } = options;
  const retryMs = options.retryMs ?? 1000;
  const watchers = new Map<string, FSWatcher>();
  let debounce: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;

  const fire = (): void => {
    if (debounce !== undefined) clearTimeout(debounce);
    debounce = setTimeout(() => {
      debounce = undefined;
      if (!closed) onChange('event');
    }, debounceMs);
    debounce.unref();
  };

  const scheduleRetry = (): void => {
    if (closed || retry !== undefined) return;
    retry = setTimeout(() => {
      retry = undefined;
      ensureWatchers();
    }, retryMs);
    retry.unref();
  };

  function ensureWatchers(): void {
    for (const dir of options.dirs) {
      if (closed || watchers.has(dir)) continue;
      try {
        const w = watch(dir, { persistent: false }, fire);
        w.on('error', (err: Error) => {
          w.close();
          watchers.delete(dir);
          options.onWatchError?.(dir, err);
          // Whatever happened may have changed the content too.
          fire();
          scheduleRetry();
        });
        watchers.set(dir, w);
      } catch (err) {
        options.onWatchError?.(dir, err as Error);
        scheduleRetry();
      }
    }
  }

  ensureWatchers();
  const poll =
    pollMs > 0
      ? setInterval(() => {
          ensureWatchers();
          onChange('poll');
        }, pollMs)
      : undefined;
  poll?.unref();

  return {
    close() {
      closed = true;
      if (debounce !== undefined) clearTimeout(debounce);
      if (retry !== undefined) clearTimeout(retry);
      if (poll !== undefined) clearInterval(poll);
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}
