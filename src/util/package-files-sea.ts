/**
 * @module util/package-files-sea
 * `package-files.ts` for the single executable: the same files, read from the assets the
 * executable carries (sea-config.json `assets`, keyed by their package-relative names). Only
 * the executable's build uses this module (scripts/build-exe.mjs swaps it in).
 */
import { getAsset } from 'node:sea';
import type { PackageFile } from './package-file-names.js';

export { PACKAGE_FILES, type PackageFile } from './package-file-names.js';

export function packageFilePath(name: PackageFile): string {
  return `${process.execPath} (embedded ${name})`;
}

export function readPackageFile(name: PackageFile): string {
  return getAsset(name, 'utf8');
}
