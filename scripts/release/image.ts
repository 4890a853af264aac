/**
 * @module scripts/release/image
 * Builds the webhook's OCI image with umoci (opencontainers' daemonless image tool; Debian
 * package `umoci`): an empty image, the rootfs (release/rootfs.ts) added as its one layer,
 * then the config (entrypoint, user, ports, labels). umoci writes every OCI structure (and
 * skopeo the optional Docker archive); this module only decides the contents. Reproducible: every timestamp is `epoch` (the commit time
 * unless SOURCE_DATE_EPOCH says otherwise), files are added in sorted order, and the archive is
 * written by GNU tar with sorted names, fixed owner and mtime.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { IMAGE_CMD, IMAGE_ENTRYPOINT, IMAGE_PORTS, IMAGE_USER, IMAGE_WORKDIR, imageLabels, imageReference } from './image-spec.js';
import { assembleRootfs } from './rootfs.js';

export interface BuildImageOptions {
  /** The single executable to ship. */
  exe: string;
  /** The OCI image layout directory to (re)create. */
  layout: string;
  /** The OCI archive to write (a tar of the layout: `podman load`, `skopeo copy oci-archive:...`). */
  archive: string;
  /** Also this Docker archive (`docker load`, which reads OCI archives only with the containerd image store), written by skopeo. */
  dockerArchive?: string;
  /** Seconds since the epoch for every timestamp. */
  epoch: number;
  /** git commit of the sources. */
  revision: string;
  umoci?: string;
  caCertificates?: string;
}

export interface BuiltImage {
  layout: string;
  archive: string;
  dockerArchive?: string;
  /** The layout's tag (the package version) and the full reference it stands for. */
  tag: string;
  reference: string;
  /** sha256:... of the image manifest: the image's identity in any registry. */
  digest: string;
}

export function buildImage(o: BuildImageOptions): BuiltImage {
  const umoci = o.umoci ?? 'umoci';
  const { tag, reference } = imageReference();
  const created = new Date(o.epoch * 1000).toISOString().replace('.000Z', 'Z');
  const image = `${o.layout}:${tag}`;
  const work = mkdtempSync(join(tmpdir(), 'si-image-'));
  const bundle = join(work, 'bundle');
  const run = (args: string[]): void => {
    execFileSync(umoci, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  };
  try {
    rmSync(o.layout, { recursive: true, force: true });
    mkdirSync(dirname(o.layout), { recursive: true });
    run(['init', '--layout', o.layout]);
    run(['new', '--image', image]);
    // unpack (of the empty image) + repack, not `umoci insert`: umoci 0.4.7's insert leaves the
    // tar without its end-of-archive blocks (umoci commit ad29ed3b, fixed in 0.5.0), which GNU tar
    // and image scanners reject.
    run(['unpack', '--image', image, bundle]);
    assembleRootfs(join(bundle, 'rootfs'), { exe: o.exe, epoch: o.epoch, caCertificates: o.caCertificates });
    run(['repack', '--image', image, '--history.created', created, '--history.created_by', 'sidecar-injector release/rootfs.ts', bundle]);
    const labels = Object.entries(imageLabels(o.revision, created)).map(([k, v]) => `${k}=${v}`);
    run([
      'config',
      '--image',
      image,
      '--created',
      created,
      '--history.created',
      created,
      '--history.created_by',
      'sidecar-injector release/image.ts',
      '--os',
      'linux',
      '--architecture',
      ociArchitecture(),
      ...IMAGE_ENTRYPOINT.flatMap((e) => ['--config.entrypoint', e]),
      ...IMAGE_CMD.flatMap((c) => ['--config.cmd', c]),
      '--config.user',
      IMAGE_USER,
      '--config.workingdir',
      IMAGE_WORKDIR,
      ...IMAGE_PORTS.flatMap((p) => ['--config.exposedports', `${p}/tcp`]),
      ...labels.flatMap((l) => ['--config.label', l, '--manifest.annotation', l]),
    ]);
    run(['gc', '--layout', o.layout]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  mkdirSync(dirname(o.archive), { recursive: true });
  execFileSync('tar', [
    '--sort=name',
    `--mtime=@${o.epoch}`,
    '--owner=0',
    '--group=0',
    '--numeric-owner',
    '--mode=u=rwX,go=rX',
    '--format=gnu',
    '-C',
    o.layout,
    '-cf',
    o.archive,
    '.',
  ]);
  if (o.dockerArchive !== undefined) {
    rmSync(o.dockerArchive, { force: true });
    execFileSync('skopeo', ['copy', '--quiet', `oci:${o.layout}:${tag}`, `docker-archive:${o.dockerArchive}:${reference}`], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  }
  return { layout: o.layout, archive: o.archive, dockerArchive: o.dockerArchive, tag, reference, digest: manifestDigest(o.layout, tag) };
}

/** The digest of the manifest tagged `tag` in an OCI layout's index.json. */
function manifestDigest(layout: string, tag: string): string {
  const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8')) as { manifests?: { digest: string; annotations?: Record<string, string> }[] };
  const m = index.manifests?.find((d) => d.annotations?.['org.opencontainers.image.ref.name'] === tag);
  if (m === undefined) throw new Error(`${layout}/index.json has no manifest tagged ${tag}`);
  return m.digest;
}

/** Node's arch name as OCI (Go's GOARCH) spells it. */
function ociArchitecture(arch: string = process.arch): string {
  const map: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' };
  const a = map[arch];
  if (a === undefined) throw new Error(`no OCI architecture for ${arch}`);
  return a;
}
