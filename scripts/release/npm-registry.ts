/**
 * @module scripts/release/npm-registry
 * A read-only npm registry on loopback for the package install test: it serves the runtime
 * dependencies pinned in package-lock.json, with their tarballs taken from npm's own
 * content-addressed cache (filled by `npm ci`). So `npm install -g ./sidecar-injector-*.tgz`
 * resolves the package's dependency ranges as it would against registry.npmjs.org, but
 * offline: tests use loopback only, and npm's `--offline` alone cannot install a tarball
 * (it needs the packuments, which `npm ci` does not cache).
 */
import { existsSync, readFileSync, createReadStream } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';

interface LockEntry {
  version: string;
  integrity?: string;
  dev?: boolean;
  devOptional?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  bin?: Record<string, string>;
  engines?: Record<string, string>;
}

export interface LockfileRegistry {
  url: string;
  /** name@version of every package served. */
  served: string[];
  close(): Promise<void>;
}

/** The cache file of an `sha512-...` integrity in npm's cacache (content-v2/sha512/aa/bb/rest). */
function cachedTarball(cacheDir: string, integrity: string): string {
  const m = /^sha512-([A-Za-z0-9+/=]+)$/.exec(integrity.split(' ')[0]);
  if (m === null) throw new Error(`unsupported integrity ${integrity}`);
  const hex = Buffer.from(m[1], 'base64').toString('hex');
  return join(cacheDir, '_cacache', 'content-v2', 'sha512', hex.slice(0, 2), hex.slice(2, 4), hex.slice(4));
}

export async function startLockfileRegistry(lockfile: string, cacheDir: string): Promise<LockfileRegistry> {
  const lock = JSON.parse(readFileSync(lockfile, 'utf8')) as { packages: Record<string, LockEntry> };
  const packuments = new Map<string, { versions: Record<string, Record<string, unknown>>; latest: string }>();
  const tarballs = new Map<string, string>();
  const served: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev === true || entry.devOptional === true) continue;
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    if (entry.integrity === undefined) throw new Error(`${path} has no integrity in the lockfile`);
    const file = cachedTarball(cacheDir, entry.integrity);
    if (!existsSync(file)) throw new Error(`${name}@${entry.version} is not in npm's cache (${cacheDir}): run \`npm ci\` first`);
    const key = `${name}@${entry.version}`;
    tarballs.set(key, file);
    served.push(key);
    const p = packuments.get(name) ?? { versions: {}, latest: entry.version };
    p.versions[entry.version] = {
      name,
      version: entry.version,
      dependencies: entry.dependencies ?? {},
      optionalDependencies: entry.optionalDependencies,
      peerDependencies: entry.peerDependencies,
      bin: entry.bin,
      engines: entry.engines,
      dist: { integrity: entry.integrity, tarball: `TARBALL/${encodeURIComponent(key)}.tgz` },
    };
    packuments.set(name, p);
  }
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]).slice(1);
    const tarball = /^-\/(.+)\.tgz$/.exec(path);
    if (tarball !== null && tarballs.has(tarball[1])) {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      createReadStream(tarballs.get(tarball[1]) as string).pipe(res);
      return;
    }
    const p = packuments.get(path);
    if (p === undefined) {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    const body = JSON.stringify({ name: path, 'dist-tags': { latest: p.latest }, versions: p.versions }).replaceAll('TARBALL/', `${url}-/`);
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { url, served, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
