/**
 * @module reload/sources
 * Snapshots of what the reloaders watch, read through the visible paths (never the hidden
 * `..2024_…` directories, whose names change on every update): a config file or a config
 * directory (a mounted ConfigMap), and a certificate + key pair (a mounted `kubernetes.io/tls`
 * Secret or any two files).
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { sha256, type Snapshot } from './file-reloader.js';

/** Directories to watch for a path that is a file (its directory) or a directory (itself). */
export async function watchDirsFor(path: string): Promise<string[]> {
  const info = await stat(path);
  return [info.isDirectory() ? resolve(path) : dirname(resolve(path))];
}

/**
 * Hash of a config location: the file's bytes, or every visible regular file of the directory
 * (name and bytes, sorted by name). Hidden entries (`..data`, `..2024_…`) are skipped; the
 * visible names resolve through them.
 */
export async function configSnapshot(path: string): Promise<Snapshot<undefined>> {
  const info = await stat(path);
  if (!info.isDirectory()) return { hash: sha256(await readFile(path)), raw: undefined };
  const names = (await readdir(path)).filter((n) => !n.startsWith('.')).sort();
  const parts: (string | Buffer)[] = [];
  for (const name of names) {
    const file = join(path, name);
    const entry = await stat(file).catch(() => undefined);
    if (entry === undefined || !entry.isFile()) continue;
    parts.push(name, await readFile(file));
  }
  return { hash: sha256(...parts), raw: undefined };
}

export interface KeyPairPem {
  certPem: string;
  keyPem: string;
  /** The issuing CA, when a `ca.crt` travels with the pair (cert-manager Secrets). */
  caPem?: string;
}

export async function keyPairSnapshot(certFile: string, keyFile: string, caFile?: string): Promise<Snapshot<KeyPairPem>> {
  const [cert, key, ca] = await Promise.all([readFile(certFile), readFile(keyFile), caFile === undefined ? undefined : readFile(caFile)]);
  const raw: KeyPairPem = { certPem: cert.toString('utf8'), keyPem: key.toString('utf8') };
  if (ca !== undefined) raw.caPem = ca.toString('utf8');
  // Changes to any of the three count; what /readyz shows (unauthenticated, on both ports) is a
  // hash of the public certificate only, never of the private key.
  return { hash: ca === undefined ? sha256(cert, key) : sha256(cert, key, ca), shownHash: sha256(cert), raw };
}
