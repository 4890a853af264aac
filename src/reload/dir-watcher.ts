/**
 * @module reload/dir-watcher
 * Tell a callback when something in a directory may have changed. Watches the *directory*,
 * not the files: a mounted ConfigMap or Secret updates by renaming a `..data` symlink onto a
 * new timestamped directory, which a watch on the old file never sees (and `fs.watch` on a
 * file dies when its directory is deleted). Events are debounced (the kubelet's swap is several
 * renames); a poll timer is the safety net for lost events (controller-runtime lost its watch
 * on file deletion, #2182), and the watcher is recreated after errors or when the directory
 * itself was removed or replaced (inotify then goes silent without an error). Timers are unref'd:
 * a watcher never keeps the process alive on its own.
 */
import { statSync, watch, type FSWatcher } from 'node:fs';

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
  const watchers = new Map<string, { watcher: FSWatcher; ino: number }>();
  let debounce: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;
  // Report a failing directory once, not on every retry, until it can be watched again.
  const failing = new Set<string>();
  const report = (dir: string, err: Error): void => {
    if (failing.has(dir)) return;
    failing.add(dir);
    options.onWatchError?.(dir, err);
  };

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

  const drop = (dir: string): void => {
    watchers.get(dir)?.watcher.close();
    watchers.delete(dir);
  };

  /** Is the watched directory still the one we watch (same inode)? If not, drop its watcher. */
  const verify = (dir: string): void => {
    const entry = watchers.get(dir);
    if (entry === undefined) return;
    let ino: number | undefined;
    try {
      ino = statSync(dir).ino;
    } catch {
      ino = undefined;
    }
    if (ino !== entry.ino) {
      drop(dir);
      scheduleRetry();
    }
  };

  function ensureWatchers(): void {
    for (const dir of options.dirs) {
      if (closed || watchers.has(dir)) continue;
      try {
        const ino = statSync(dir).ino;
        const w = watch(dir, { persistent: false }, (event) => {
          if (event === 'rename') verify(dir);
          fire();
        });
        w.on('error', (err: Error) => {
          drop(dir);
          report(dir, err);
          // Whatever happened may have changed the content too.
          fire();
          scheduleRetry();
        });
        watchers.set(dir, { watcher: w, ino });
        failing.delete(dir);
      } catch (err) {
        report(dir, err as Error);
        scheduleRetry();
      }
    }
  }

  ensureWatchers();
  const poll =
    pollMs > 0
      ? setInterval(() => {
          for (const dir of options.dirs) verify(dir);
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
      for (const dir of [...watchers.keys()]) drop(dir);
    },
  };
}
