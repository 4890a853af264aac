/**
 * @module scripts/release/rootfs
 * The image's root filesystem, assembled in a directory: the single executable, exactly the
 * shared libraries it links (as `ldd` reports them, at the paths the loader asks for), the CA
 * certificates, and /etc/passwd + /etc/group naming uid/gid 65532. Nothing else: no shell, no
 * package manager. Every file is root-owned with a normalised mode and one fixed mtime, so the
 * same inputs give the same layer bytes. `npm run image` and deploy/Dockerfile both use this.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, lstatSync, mkdirSync, readdirSync, realpathSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RUN_AS_USER } from '../../src/install/options.js';
import { IMAGE_ACCOUNT, IMAGE_BINARY } from './image-spec.js';

const CA_CERTIFICATES = '/etc/ssl/certs/ca-certificates.crt';

/** The absolute paths of the shared objects `ldd` says `exe` loads (the loader included, the vDSO not). */
function linkedLibraries(exe: string): string[] {
  let out: string;
  try {
    out = execFileSync('ldd', [exe], { encoding: 'utf8' });
  } catch (err) {
    throw new Error(`ldd ${exe} failed (is it a dynamically linked executable, and is ldd installed?): ${String(err)}`);
  }
  return parseLdd(out);
}

/** `libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)` and `/lib64/ld-linux-x86-64.so.2 (0x...)` lines. */
function parseLdd(out: string): string[] {
  const libs = new Set<string>();
  for (const line of out.split('\n')) {
    const t = line.trim();
    if (t === '' || t.startsWith('linux-vdso') || t.startsWith('linux-gate')) continue;
    if (t.includes('not found')) throw new Error(`ldd: a library is missing on the build machine: ${t}`);
    const m = /^(?:\S+ => )?(\/\S+) \(0x[0-9a-f]+\)$/.exec(t);
    if (m === null) throw new Error(`ldd: unexpected line "${t}"`);
    libs.add(m[1]);
  }
  if (libs.size === 0) throw new Error('ldd reported no libraries: a statically linked node is not expected here');
  return [...libs].sort();
}

export interface RootfsOptions {
  /** The single executable to ship (out/sidecar-injector-linux-x64). */
  exe: string;
  /** Every mtime in the tree, seconds since the epoch. */
  epoch: number;
  caCertificates?: string;
}

/** Fill the empty directory `dir`; returns the files written, relative to `dir`, sorted. */
export function assembleRootfs(dir: string, options: RootfsOptions): string[] {
  const put = (path: string, from: { file: string } | { text: string }, mode: number): void => {
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    if ('file' in from) copyFileSync(realpathSync(from.file), target);
    else writeFileSync(target, from.text);
    chmodSync(target, mode);
  };
  put(IMAGE_BINARY, { file: options.exe }, 0o755);
  for (const lib of linkedLibraries(options.exe)) put(lib, { file: lib }, 0o755);
  put(CA_CERTIFICATES, { file: options.caCertificates ?? CA_CERTIFICATES }, 0o644);
  // No login shell exists in the image; nologin is the conventional placeholder.
  put(
    '/etc/passwd',
    { text: `root:x:0:0:root:/root:/sbin/nologin\n${IMAGE_ACCOUNT}:x:${RUN_AS_USER}:${RUN_AS_USER}:${IMAGE_ACCOUNT}:/nonexistent:/sbin/nologin\n` },
    0o644,
  );
  put('/etc/group', { text: `root:x:0:\n${IMAGE_ACCOUNT}:x:${RUN_AS_USER}:\n` }, 0o644);
  return normalise(dir, options.epoch);
}

/** Directories 0755, one mtime everywhere (deepest first, so a parent's mtime is not bumped again). */
function normalise(dir: string, epoch: number): string[] {
  const files: string[] = [];
  const walk = (rel: string): void => {
    const abs = join(dir, rel);
    const st = lstatSync(abs);
    if (st.isDirectory()) {
      for (const name of readdirSync(abs).sort()) walk(rel === '' ? name : `${rel}/${name}`);
      chmodSync(abs, 0o755);
    } else if (st.isFile()) {
      files.push(rel);
    } else {
      throw new Error(`rootfs: ${rel} is neither a file nor a directory`);
    }
    utimesSync(abs, epoch, epoch);
  };
  walk('');
  return files.sort();
}
