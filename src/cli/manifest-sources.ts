/**
 * @module cli/manifest-sources
 * What `-f` names, read as kubectl reads it: every `-f` in order; a directory's `.yaml`, `.yml`
 * and `.json` files (sorted by name, not recursive, as `kubectl apply -f DIR` without -R); `-`
 * for stdin (once); an http(s) URL fetched with a deadline and a size cap. Anything else that
 * looks like a URL is refused in words, not reported as a missing file.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { InjectorError } from '../errors.js';
import { readInput, type CliIO } from './io.js';

export interface ManifestSource {
  /** The file, URL or `<stdin>`, for messages. */
  name: string;
  bytes: Buffer;
}

const MANIFEST_EXTENSIONS = /\.(ya?ml|json)$/i;
const URL_DEADLINE_MS = 30_000;
const URL_MAX_BYTES = 64 * 1024 * 1024;

/** Repeatable `-f`: commander hands each value to this, with the list so far. */
export function collectFiles(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export async function readManifestSources(io: CliIO, names: readonly string[]): Promise<ManifestSource[]> {
  const out: ManifestSource[] = [];
  let stdin = false;
  for (const name of names) {
    if (name === '-') {
      if (stdin) throw new InjectorError('SI_USAGE', '-f - is given twice: stdin can be read once');
      stdin = true;
      out.push({ name: '<stdin>', bytes: await readInput(io, '-') });
    } else if (/^https?:\/\//i.test(name)) out.push({ name, bytes: await fetchManifest(name) });
    else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(name))
      throw new InjectorError('SI_FILE_READ', `cannot read ${name}: only http:// and https:// URLs are fetched; download it and pass the file`, {
        location: { file: name },
      });
    else if (await isDirectory(name)) {
      const files = (await readdir(name)).filter((f) => MANIFEST_EXTENSIONS.test(f)).sort();
      if (files.length === 0) throw new InjectorError('SI_FILE_READ', `${name} is a directory with no .yaml, .yml or .json file`, { location: { file: name } });
      for (const f of files) out.push({ name: join(name, f), bytes: await readInput(io, join(name, f)) });
    } else out.push({ name, bytes: await readInput(io, name) });
  }
  return out;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false; // readInput says what is wrong with it
  }
}

async function fetchManifest(url: string): Promise<Buffer> {
  const fail = (why: string, cause?: unknown) => new InjectorError('SI_FILE_READ', `cannot read ${url}: ${why}`, { cause, location: { file: url } });
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(URL_DEADLINE_MS), redirect: 'follow' });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    if ((err as Error).name === 'TimeoutError') throw fail(`no answer within ${URL_DEADLINE_MS / 1000} s`, err);
    throw fail(cause?.code ?? (err as Error).message, err);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw fail(`HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  try {
    while (reader !== undefined) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > URL_MAX_BYTES) {
        await reader.cancel();
        throw fail(`the answer is larger than ${URL_MAX_BYTES / 1024 / 1024} MiB`);
      }
      chunks.push(Buffer.from(value));
    }
  } catch (err) {
    if (err instanceof InjectorError) throw err;
    throw fail((err as Error).name === 'TimeoutError' ? `no answer within ${URL_DEADLINE_MS / 1000} s` : (err as Error).message, err);
  }
  return Buffer.concat(chunks);
}

/** Several manifest streams as one: a `---` between them (a newline between two JSON streams). */
export function joinStreams(texts: readonly string[]): string {
  const json = (t: string) => /^\s*[{[]/.test(t);
  let out = '';
  let previous = '';
  for (const text of texts) {
    if (text === '') continue;
    if (out !== '') {
      if (!out.endsWith('\n')) out += '\n';
      if (!(json(previous) && json(text))) out += '---\n';
    }
    out += text;
    previous = text;
  }
  return out;
}
