/**
 * @module util/package-files
 * The package's own files read at run time: the built-in config (`defaults/`) and
 * `package.json` (the version). With Node they sit two directories above the code, both for
 * the sources (src/x/) and the bundle (dist/bin/). The single executable (scripts/build-exe.mjs)
 * has no package directory: its build swaps this module for `package-files-sea.ts`, which reads
 * the same files from the executable's embedded assets. Keep the two modules' exports identical.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PackageFile } from './package-file-names.js';

export { type PackageFile } from './package-file-names.js';

/** Where the file is, for messages (a path on disk here; a name inside the executable there). */
export function packageFilePath(name: PackageFile): string {
  return fileURLToPath(new URL(`../../${name}`, import.meta.url));
}

/** The file's text; throws the file system's error when the package is incomplete. */
export function readPackageFile(name: PackageFile): string {
  return readFileSync(new URL(`../../${name}`, import.meta.url), 'utf8');
}
