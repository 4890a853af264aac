/**
 * @module scripts/release/image-cli
 * `npm run image`: builds the OCI image around the single executable that `npm run build:exe`
 * has just written to out/: an OCI layout (out/image/, tagged with the package version), the
 * same as an OCI archive (out/sidecar-injector-VERSION.oci.tar) and as a Docker archive
 * (out/sidecar-injector-VERSION.docker.tar, for `docker load`). Timestamps come from
 * SOURCE_DATE_EPOCH, else from the last commit, so rebuilding a commit gives the same digest.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildImage } from './image.js';
import { EXE_NAME, imageReference } from './image-spec.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function git(args: string[]): string | undefined {
  const r = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function sourceEpoch(): number {
  const raw = process.env.SOURCE_DATE_EPOCH ?? git(['log', '-1', '--format=%ct']);
  const epoch = Number(raw);
  if (raw === undefined || raw === '' || !Number.isInteger(epoch) || epoch < 0)
    throw new Error('no timestamp for the image: set SOURCE_DATE_EPOCH (this is not a git checkout)');
  return epoch;
}

function main(): void {
  const exe = join(ROOT, 'out', EXE_NAME);
  if (!existsSync(exe)) throw new Error(`${exe} is missing: run \`npm run build:exe\` first (\`npm run image\` does)`);
  if (spawnSync('umoci', ['--version']).status !== 0 || spawnSync('skopeo', ['--version']).status !== 0) {
    console.error('image: umoci or skopeo is not installed; installing them with scripts/install-image-tools.sh');
    execFileSync(join(ROOT, 'scripts', 'install-image-tools.sh'), { stdio: 'inherit' });
  }
  const { tag } = imageReference();
  const image = buildImage({
    exe,
    layout: join(ROOT, 'out', 'image'),
    archive: join(ROOT, 'out', `sidecar-injector-${tag}.oci.tar`),
    dockerArchive: join(ROOT, 'out', `sidecar-injector-${tag}.docker.tar`),
    epoch: sourceEpoch(),
    revision: git(['rev-parse', 'HEAD']) ?? 'unknown',
  });
  const layout = relative(process.cwd(), image.layout) || '.';
  const archive = relative(process.cwd(), image.archive);
  const dockerArchive = relative(process.cwd(), image.dockerArchive ?? '');
  console.log(`image ${image.reference}
  digest  ${image.digest}
  layout  ${layout} (tag ${image.tag})
  archive ${archive} (OCI), ${dockerArchive} (Docker)
push: crane push ${layout} ${image.reference}
  or: skopeo copy oci:${layout}:${image.tag} docker://${image.reference}
load: podman load -i ${archive}
  or: docker load -i ${dockerArchive}`);
}

try {
  main();
} catch (err) {
  console.error(`image: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
}
