/**
 * @module util/package-file-names
 * Every file the code reads from its own package at run time; the single executable embeds
 * exactly these as assets (scripts/build-exe.mjs), so a file missing here is missing there.
 */
export const PACKAGE_FILES = ['defaults/config.yaml', 'defaults/values.yaml', 'package.json'] as const;
export type PackageFile = (typeof PACKAGE_FILES)[number];
