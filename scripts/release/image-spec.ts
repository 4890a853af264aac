/**
 * @module scripts/release/image-spec
 * What the webhook's container image is, in one place: `npm run image` (umoci) builds it from
 * these values, deploy/Dockerfile states the same (a test compares them), and `manifests` / the
 * Helm chart default to the reference it is tagged with.
 */
import {
  DEFAULT_IMAGE_REPOSITORY,
  DEFAULT_MONITORING_PORT,
  DEFAULT_WEBHOOK_PORT,
  RUN_AS_USER,
  defaultImage,
  packageVersion,
} from '../../src/install/options.js';
import { readPackageFile } from '../../src/util/package-files.js';

/** The single executable (scripts/build-exe.mjs) is the image's only program. */
export const IMAGE_BINARY = '/usr/local/bin/sidecar-injector';
/**
 * `sidecar-injector serve`: the binary is the entrypoint and `serve` the default arguments, so a
 * pod's `args` (the manifests give `serve --port ...`) replace only the arguments, as with any
 * Kubernetes image. With no arguments the image serves a development certificate.
 */
export const IMAGE_ENTRYPOINT = [IMAGE_BINARY] as const;
export const IMAGE_CMD = ['serve'] as const;
/** Numeric, so `runAsNonRoot` can verify it; the manifests run as the same uid/gid. */
export const IMAGE_USER = `${RUN_AS_USER}:${RUN_AS_USER}`;
export const IMAGE_PORTS = [DEFAULT_WEBHOOK_PORT, DEFAULT_MONITORING_PORT] as const;
export const IMAGE_WORKDIR = '/';
export const IMAGE_SOURCE = 'https://github.com/sidecar-injector/sidecar-injector';
/** The account in the image's /etc/passwd (distroless calls uid 65532 `nonroot`). */
export const IMAGE_ACCOUNT = 'nonroot';

/** repository:tag of the image this build produces (= the `manifests --image` default). */
export function imageReference(): { repository: string; tag: string; reference: string } {
  const tag = packageVersion();
  return { repository: DEFAULT_IMAGE_REPOSITORY, tag, reference: defaultImage() };
}

/** OCI annotation keys (image-spec annotations.md) and their values; `revision` is the git commit. */
export function imageLabels(revision: string, created: string): Record<string, string> {
  const pkg = JSON.parse(readPackageFile('package.json')) as { version: string; license: string; description: string };
  return {
    'org.opencontainers.image.title': 'sidecar-injector',
    'org.opencontainers.image.description': pkg.description,
    'org.opencontainers.image.version': pkg.version,
    'org.opencontainers.image.revision': revision,
    'org.opencontainers.image.source': IMAGE_SOURCE,
    'org.opencontainers.image.licenses': pkg.license,
    'org.opencontainers.image.created': created,
  };
}

/** The file `npm run build:exe` writes to out/ (scripts/build-exe.mjs names it the same way). */
export const EXE_NAME = `sidecar-injector-${process.platform}-${process.arch}`;
