/**
 * @module scripts/release/rootfs-cli
 * `tsx scripts/release/rootfs-cli.ts DIR [--exe FILE]`: assemble the image's root filesystem in DIR
 * (an empty or missing directory) around the single executable (default: out/ of
 * `npm run build:exe`). deploy/Dockerfile runs this in its build stage and copies DIR into an
 * empty image, so a Docker build ships the same files as `npm run image`.
 * Timestamps: SOURCE_DATE_EPOCH, else 0.
 */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXE_NAME } from './image-spec.js';
import { assembleRootfs } from './rootfs.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const args = process.argv.slice(2);
const exeAt = args.indexOf('--exe');
const exe = exeAt >= 0 ? resolve(args[exeAt + 1] ?? '') : join(ROOT, 'out', EXE_NAME);
const dir = args.find((a, i) => !a.startsWith('--') && (exeAt < 0 || i !== exeAt + 1));
try {
  if (dir === undefined) throw new Error('usage: rootfs-cli.ts DIR [--exe FILE]');
  if (!existsSync(exe)) throw new Error(`${exe} is missing: run \`npm run build:exe\` first`);
  mkdirSync(dir, { recursive: true });
  if (readdirSync(dir).length > 0) throw new Error(`${dir} is not empty`);
  const epoch = Number(process.env.SOURCE_DATE_EPOCH ?? '0');
  if (!Number.isInteger(epoch) || epoch < 0) throw new Error(`SOURCE_DATE_EPOCH=${process.env.SOURCE_DATE_EPOCH} is not a number of seconds`);
  for (const file of assembleRootfs(resolve(dir), { exe, epoch })) console.log(file);
} catch (err) {
  console.error(`rootfs: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
}
