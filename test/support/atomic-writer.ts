/**
 * @module test/support/atomic-writer
 * Update a directory the way the kubelet updates a mounted ConfigMap or Secret
 * (pkg/volume/util/atomic_writer.go): files go into a new hidden timestamped directory,
 * `..data_tmp` is pointed at it and renamed over `..data` (one atomic step), visible names are
 * symlinks `name -> ..data/name`, and the previous timestamped directory is deleted.
 */
import { mkdir, readdir, readlink, rename, rm, symlink, writeFile, lstat } from 'node:fs/promises';
import { join } from 'node:path';

let counter = 0;

function timestampDir(): string {
  const d = new Date();
  const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
  counter++;
  return `..${d.getUTCFullYear()}_${pad(d.getUTCMonth() + 1)}_${pad(d.getUTCDate())}_${pad(d.getUTCHours())}_${pad(d.getUTCMinutes())}_${pad(d.getUTCSeconds())}.${process.pid}${pad(counter, 6)}`;
}

/** Replace the whole projected content of `dir` with `files` (name -> content). */
export async function atomicWrite(dir: string, files: Record<string, string | Buffer>): Promise<void> {
  await mkdir(dir, { recursive: true });
  const previous = await readlink(join(dir, '..data')).catch(() => undefined);
  const fresh = timestampDir();
  await mkdir(join(dir, fresh));
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, fresh, name), content);
  await rm(join(dir, '..data_tmp'), { force: true });
  await symlink(fresh, join(dir, '..data_tmp'));
  await rename(join(dir, '..data_tmp'), join(dir, '..data'));
  // Visible names: create links for new files, drop links for removed ones.
  for (const name of Object.keys(files)) {
    const exists = await lstat(join(dir, name)).then(
      () => true,
      () => false,
    );
    if (!exists) await symlink(join('..data', name), join(dir, name));
  }
  for (const entry of await readdir(dir)) {
    if (entry.startsWith('.') || Object.hasOwn(files, entry)) continue;
    const link = await readlink(join(dir, entry)).catch(() => undefined);
    if (link !== undefined && link.startsWith('..data/')) await rm(join(dir, entry));
  }
  if (previous !== undefined) await rm(join(dir, previous), { recursive: true, force: true });
}
