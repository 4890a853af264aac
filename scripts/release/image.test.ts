/**
 * The OCI image, built twice from a fresh single executable with umoci, then unpacked into an
 * OCI runtime bundle (umoci derives config.json from the image config: entrypoint, cmd, user)
 * and run by runc, as a container engine would, with the Deployment's read-only root filesystem
 * and no capabilities. Needs root, umoci, skopeo and runc (scripts/install-image-tools.sh):
 * without them every test is SKIPPED, never passed. Takes about half a minute.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { defaultImage, RUN_AS_USER } from '../../src/install/options.js';
import { freePort } from '../../test/support/server-process.js';
import { buildImage, type BuiltImage } from './image.js';
import { IMAGE_CMD, IMAGE_ENTRYPOINT, IMAGE_PORTS, IMAGE_SOURCE, IMAGE_USER } from './image-spec.js';
import { buildExe, ROOT, serveOneReview } from './test-support.js';

function skipReason(): string | false {
  if (process.platform !== 'linux') return 'the image smoke test needs Linux';
  if (process.getuid?.() !== 0) return 'needs root (umoci writes root-owned files, runc runs the container)';
  for (const tool of ['umoci', 'skopeo', 'runc', 'tar', 'ldd']) {
    if (spawnSync(tool, ['--version']).error !== undefined) return `${tool} is not installed (scripts/install-image-tools.sh installs umoci, skopeo and runc)`;
  }
  return false;
}
const skip = skipReason();

const dir = mkdtempSync(join(tmpdir(), 'si-image-test-'));
const bundle = join(dir, 'bundle');
const EPOCH = 1_700_000_000;
let a: BuiltImage;
let b: BuiltImage;
const containers: string[] = [];
/** config.json as umoci derived it from the image config (read once, before any change). */
let pristine = '';

before(() => {
  if (skip !== false) return;
  const exe = buildExe(join(dir, 'out'));
  const build = (name: string) =>
    buildImage({
      exe,
      layout: join(dir, name),
      archive: join(dir, `${name}.oci.tar`),
      dockerArchive: join(dir, `${name}.docker.tar`),
      epoch: EPOCH,
      revision: 'test-revision',
    });
  a = build('a');
  b = build('b');
  const r = spawnSync('umoci', ['unpack', '--image', `${a.layout}:${a.tag}`, bundle], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`umoci unpack: ${r.stderr}`);
  pristine = readFileSync(join(bundle, 'config.json'), 'utf8');
});
after(() => {
  for (const id of containers) spawnSync('runc', ['delete', '--force', id]);
  rmSync(dir, { recursive: true, force: true });
});

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const blob = (layout: string, digest: string) => JSON.parse(readFileSync(join(layout, 'blobs', ...digest.split(':')), 'utf8')) as Record<string, unknown>;

test('same inputs, same image: two builds give one digest and identical archives', { skip }, () => {
  assert.match(a.digest, /^sha256:[0-9a-f]{64}$/);
  assert.equal(b.digest, a.digest);
  assert.equal(sha256(b.archive), sha256(a.archive));
  assert.equal(sha256(b.dockerArchive ?? ''), sha256(a.dockerArchive ?? ''));
});

test('the Docker archive (for docker load) names the image and holds the same config', { skip }, () => {
  const list = spawnSync('tar', ['-xOf', a.dockerArchive ?? '', 'manifest.json'], { encoding: 'utf8' });
  assert.equal(list.status, 0, list.stderr);
  const [entry] = JSON.parse(list.stdout) as { RepoTags: string[]; Config: string }[];
  assert.deepEqual(entry.RepoTags, [a.reference]);
  const index = JSON.parse(readFileSync(join(a.layout, 'index.json'), 'utf8')) as { manifests: { digest: string }[] };
  const manifest = blob(a.layout, index.manifests[0].digest) as { config: { digest: string } };
  // Docker's image ID is the config digest: the same image.
  assert.equal(`sha256:${entry.Config.replace(/\.json$/, '')}`, manifest.config.digest);
});

test('the image is tagged with the manifests default and the Helm chart default', { skip }, () => {
  assert.equal(a.reference, defaultImage());
  const values = parse(readFileSync(join(ROOT, 'deploy/helm/sidecar-injector/values.yaml'), 'utf8')) as { image: { repository: string; tag: string } };
  const chart = parse(readFileSync(join(ROOT, 'deploy/helm/sidecar-injector/Chart.yaml'), 'utf8')) as { appVersion: string };
  assert.equal(`${values.image.repository}:${values.image.tag || chart.appVersion}`, a.reference);
});

test('the image config: entrypoint `sidecar-injector serve`, user 65532, ports, OCI labels', { skip }, () => {
  const index = JSON.parse(readFileSync(join(a.layout, 'index.json'), 'utf8')) as { manifests: { digest: string }[] };
  const manifest = blob(a.layout, index.manifests[0].digest) as { config: { digest: string }; layers: unknown[]; annotations: Record<string, string> };
  assert.equal(manifest.layers.length, 1);
  const config = blob(a.layout, manifest.config.digest) as {
    created: string;
    config: { Entrypoint: string[]; Cmd: string[]; User: string; ExposedPorts: Record<string, unknown>; Labels: Record<string, string> };
  };
  assert.deepEqual([...config.config.Entrypoint, ...config.config.Cmd], ['/usr/local/bin/sidecar-injector', 'serve']);
  assert.deepEqual(config.config.Entrypoint, [...IMAGE_ENTRYPOINT]);
  assert.deepEqual(config.config.Cmd, [...IMAGE_CMD]);
  assert.equal(config.config.User, `${RUN_AS_USER}:${RUN_AS_USER}`);
  assert.equal(IMAGE_USER, '65532:65532');
  assert.deepEqual(Object.keys(config.config.ExposedPorts).sort(), IMAGE_PORTS.map((p) => `${p}/tcp`).sort());
  assert.equal(config.created, new Date(EPOCH * 1000).toISOString().replace('.000Z', 'Z'));
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; license: string };
  for (const labels of [config.config.Labels, manifest.annotations]) {
    assert.equal(labels['org.opencontainers.image.version'], pkg.version);
    assert.equal(labels['org.opencontainers.image.revision'], 'test-revision');
    assert.equal(labels['org.opencontainers.image.source'], IMAGE_SOURCE);
    assert.equal(labels['org.opencontainers.image.licenses'], pkg.license);
  }
});

/** What may be in the image: the program, the libraries node links, CA certificates, the accounts. */
const ALLOWED_FILES = [
  /^usr\/local\/bin\/sidecar-injector$/,
  /^(usr\/)?lib(64|\/x86_64-linux-gnu|\/aarch64-linux-gnu)?\/(ld-linux[-\w.]*\.so\.\d+|lib(c|m|dl|pthread|rt|stdc\+\+|gcc_s|atomic)\.so(\.\d+)*)$/,
  /^etc\/ssl\/certs\/ca-certificates\.crt$/,
  /^etc\/(passwd|group)$/,
];

test('the image holds nothing outside the allow-list: no shell, no package manager, root-owned, no setuid', { skip }, () => {
  const rootfs = join(bundle, 'rootfs');
  const files: string[] = [];
  const dirs: string[] = [];
  const walk = (rel: string): void => {
    const st = lstatSync(join(rootfs, rel));
    assert.equal(st.uid, 0, `${rel} not owned by root`);
    assert.equal(st.gid, 0, `${rel} not owned by group root`);
    assert.equal(st.mode & 0o7022, 0, `${rel}: setuid/setgid/sticky or writable by group or others (${(st.mode & 0o7777).toString(8)})`);
    if (st.isDirectory()) {
      if (rel !== '') dirs.push(rel);
      for (const name of readdirSync(join(rootfs, rel))) walk(rel === '' ? name : `${rel}/${name}`);
    } else {
      assert.ok(st.isFile(), `${rel} is neither a file nor a directory`);
      files.push(rel);
    }
  };
  walk('');
  const stray = files.filter((f) => !ALLOWED_FILES.some((re) => re.test(f)));
  assert.deepEqual(stray, [], 'files outside the allow-list');
  for (const d of dirs)
    assert.ok(
      files.some((f) => f.startsWith(`${d}/`)),
      `empty directory ${d}`,
    );
  for (const needed of ['usr/local/bin/sidecar-injector', 'etc/passwd', 'etc/group', 'etc/ssl/certs/ca-certificates.crt'])
    assert.ok(files.includes(needed), `${needed} missing`);
  assert.ok(
    files.some((f) => /\/libc\.so\.6$/.test(f)),
    'libc missing',
  );
  assert.match(readFileSync(join(rootfs, 'etc/passwd'), 'utf8'), /^nonroot:x:65532:65532:/m);
});

interface RuntimeConfig {
  process: { args: string[]; terminal: boolean; user: { uid: number; gid: number }; capabilities?: Record<string, string[]>; noNewPrivileges?: boolean };
  root: { path: string; readonly?: boolean };
  linux: { namespaces: { type: string }[] };
}

const derived = (): RuntimeConfig => JSON.parse(pristine) as RuntimeConfig;

/**
 * Write the bundle's config.json changed as the Deployment asks (read-only root, all
 * capabilities dropped, no privilege escalation) plus the host network (reachable on
 * loopback) and `args`.
 */
function useArgs(args: (original: string[]) => string[]): void {
  const config = derived();
  config.process.args = args(config.process.args);
  config.process.terminal = false;
  config.root.readonly = true;
  config.process.capabilities = { bounding: [], effective: [], permitted: [], inheritable: [], ambient: [] };
  config.process.noNewPrivileges = true;
  config.linux.namespaces = config.linux.namespaces.filter((n) => n.type !== 'network');
  writeFileSync(join(bundle, 'config.json'), JSON.stringify(config));
}

function runContainer(name: string) {
  const id = `si-image-test-${process.pid}-${name}`;
  containers.push(id);
  return spawnSync('runc', ['run', '--bundle', bundle, id], { encoding: 'utf8', timeout: 60_000 });
}

test('umoci derives the container process from the image: `sidecar-injector serve` as 65532:65532', { skip }, () => {
  const config = derived();
  assert.deepEqual(config.process.args, [...IMAGE_ENTRYPOINT, ...IMAGE_CMD]);
  assert.deepEqual(config.process.args, ['/usr/local/bin/sidecar-injector', 'serve']);
  assert.deepEqual(config.process.user, { uid: 65532, gid: 65532 });
});

test('the container runs the entrypoint with --help (runc, read-only root, no capabilities)', { skip }, () => {
  useArgs((args) => [args[0], '--help']);
  const r = runContainer('help');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Usage: sidecar-injector \[options\] \[command\]/);
  assert.match(r.stdout, /\bserve\b/);
});

test('the container has no shell to run', { skip }, () => {
  useArgs(() => ['/bin/sh', '-c', 'true']);
  const r = runContainer('sh');
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /no such file or directory/i);
});

test('the container serves one admission request with the development certificate, as uid 65532', { skip }, async () => {
  const port = await freePort();
  useArgs((args) => [...args, '--port', String(port), '--address', '127.0.0.1']);
  const id = `si-image-test-${process.pid}-serve`;
  containers.push(id);
  const pidFile = join(dir, 'serve.pid');
  await serveOneReview({ command: 'runc', args: ['run', '--bundle', bundle, '--pid-file', pidFile, id], port, timeoutMs: 60_000 }, () => {
    const pid = readFileSync(pidFile, 'utf8').trim();
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    assert.match(status, /^Uid:\s+65532\s+65532\s+65532\s+65532$/m);
    assert.match(status, /^Gid:\s+65532\s+65532\s+65532\s+65532$/m);
    assert.match(readFileSync(`/proc/${pid}/cmdline`, 'utf8'), /^\/usr\/local\/bin\/sidecar-injector\0serve\0/);
  });
});
