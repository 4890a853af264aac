/**
 * @module cli/io
 * The CLI's only door to the outside world: streams and files behind a small interface, so
 * every command can be run in-process by tests and write nothing partial on failure.
 */
import { readFile, writeFile, rename, unlink } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { InjectorError } from '../errors.js';

export interface CliIO {
  readStdin(): Promise<Buffer>;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Long-running commands (serve) wait on this; tests resolve it to stop them. */
  readonly signal?: AbortSignal;
}

export function processIO(): CliIO {
  // A reader that goes away early (`sidecar-injector ... | head`) is normal, not a crash: end
  // quietly as Unix tools killed by SIGPIPE do (status 141), with no stack trace.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(141);
    throw err;
  });
  process.stderr.on('error', () => undefined);
  return {
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
  };
}

/** Read `path`, or stdin when `path` is `-`. Errors name the file. */
export async function readInput(io: CliIO, path: string): Promise<Buffer> {
  if (path === '-') return io.readStdin();
  try {
    return await readFile(path);
  } catch (err) {
    throw new InjectorError('SI_FILE_READ', `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, {
      cause: err,
      location: { file: path },
    });
  }
}

/** Write the whole output at once: to stdout, or to a file via rename so a failure leaves no half file. */
export async function writeOutput(io: CliIO, path: string | undefined, text: string): Promise<void> {
  if (path === undefined || path === '-') {
    io.stdout(text);
    return;
  }
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    await writeFile(tmp, text);
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw new InjectorError('SI_FILE_WRITE', `cannot write ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, {
      cause: err,
      location: { file: path },
    });
  }
}
