/**
 * @module e2e/run
 * `npm run e2e [-- [--no-node] FILTER...]`: build the cluster's binaries (seconds when cached)
 * and our CLI bundle (SI_E2E_NO_BUILD=1 skips that when it exists), start the local cluster with
 * its node (or a control plane only with --no-node; or reuse a running one of that kind, and
 * then leave it running), run every `e2e/scenarios/*.e2e.ts` file against it one at a time,
 * print a table of scenarios, and clean up: the test process group is killed (no stray webhook
 * servers) and a cluster this run started is torn down, also on Ctrl-C.
 *
 * When this run starts a node, it also proves that `down` restores the host: a snapshot of the
 * host state taken before `up` must equal one taken after `down` (cluster/host-state.ts), or the
 * run fails with the difference.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { down, exportLine, healthy, readState, up } from './cluster/cluster.js';
import { ensureBinaries, ensurePrometheus, repoRoot, stateDir } from './cluster/paths.js';
import { diffHost, entryCount, snapshotHost } from './cluster/host-state.js';
import { ensureNodeBuild, importTestImages, loadImage, undoStaleNode, type NodeState } from './cluster/node.js';
import { imageReference } from '../scripts/release/image-spec.js';

async function main(argv: string[]): Promise<number> {
  const withNode = !argv.includes('--no-node');
  const filters = argv.filter((a) => a !== '--no-node');
  const binDir = ensureBinaries();
  const prometheusDir = ensurePrometheus();
  const cliPath = join(repoRoot, 'dist/bin/sidecar-injector.mjs');
  // The scenarios run the CLI as it ships (the bundle), built from this tree, never a stale one.
  if (process.env.SI_E2E_NO_BUILD !== '1' || !existsSync(cliPath)) {
    const built = spawnSync('npm', ['run', '-s', 'build'], { cwd: repoRoot, stdio: 'inherit' });
    if (built.status !== 0) return 2;
  }
  const dir = join(repoRoot, 'e2e/scenarios');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.e2e.ts'))
    .sort()
    .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
    .map((f) => join(dir, f));
  if (files.length === 0) {
    process.stderr.write(`e2e: no scenario file matches ${filters.join(' ')}\n`);
    return 2;
  }
  const existing = readState();
  const reuse = existing !== undefined && existing.webhookClientDir !== undefined && (existing.node !== undefined) === withNode && (await healthy(existing));
  const t0 = Date.now();
  if (!reuse && withNode) {
    // Whatever `up` would undo first is undone before the snapshot, so the leftovers of a killed
    // run (this state directory's or another's) are not taken for the host's own state.
    if (existing) await down();
    undoStaleNode(stateDir(), (l) => process.stderr.write(`${l}\n`));
  }
  const before = !reuse && withNode ? snapshotHost() : undefined;
  const state = reuse ? existing! : await up({ node: withNode });
  const kind = state.node ? 'cluster (control plane and node)' : 'control plane';
  process.stderr.write(`e2e: ${kind} ${reuse ? 'reused' : 'started'} (${exportLine(state)}) in ${((Date.now() - t0) / 1000).toFixed(1)}s\n`);
  // A reused node may hold test images older than e2e/images/: build (cached) and import them.
  if (reuse && state.node) importTestImages({ ...state.node, imagesDir: ensureNodeBuild().imagesDir });
  // Our own image, as `npm run image` builds it from this tree, in the node's containerd.
  const image = state.node ? buildAndLoadImage(state.node) : undefined;
  if (image === null) {
    if (!reuse) await down();
    return 2;
  }
  const env = {
    ...process.env,
    KUBECONFIG: state.kubeconfig,
    SI_E2E_WEBHOOK_CLIENT_DIR: state.webhookClientDir,
    PATH: `${binDir}:${process.env.PATH ?? ''}`,
    SI_E2E_CLI: cliPath,
    SI_E2E_IMAGE: image ?? '',
    SI_PROMETHEUS_DIR: prometheusDir,
  };
  const args = [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=1',
    '--test-timeout=900000',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${join(repoRoot, 'e2e/lib/table-reporter.mjs')}`,
    '--test-reporter-destination=stdout',
    ...files,
  ];
  // Its own process group, so that every server a scenario started dies with it.
  const child = spawn(process.execPath, args, { cwd: repoRoot, env, stdio: 'inherit', detached: true });
  const killGroup = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      /* gone */
    }
  };
  let interrupted = false;
  const onSignal = (): void => {
    interrupted = true;
    killGroup('SIGTERM');
    setTimeout(() => killGroup('SIGKILL'), 10_000).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const code = await new Promise<number>((resolve) => child.on('exit', (c, s) => resolve(c ?? (s ? 130 : 1))));
  killGroup('SIGKILL');
  if (reuse) {
    process.stderr.write(`e2e: left the reused ${kind} running\n`);
    return interrupted ? 130 : code;
  }
  await down();
  if (before) {
    const diff = diffHost(before, snapshotHost());
    if (diff.length > 0) {
      process.stderr.write(`e2e: FAIL: the host state after down differs from before up:\n  ${diff.join('\n  ')}\n`);
      return interrupted ? 130 : 1;
    }
    process.stderr.write(
      `e2e: the host state after down equals the state before up (${entryCount(before)} entries: links, routes, iptables, nftables, sysctls, mounts, cgroups, paths, processes)\n`,
    );
  }
  return interrupted ? 130 : code;
}

/** `npm run image` (skipped with SI_E2E_NO_BUILD=1 when its archive exists), then import; the reference, or null on failure. */
function buildAndLoadImage(node: NodeState): string | null {
  const { tag, reference } = imageReference();
  const archive = join(repoRoot, 'out', `sidecar-injector-${tag}.docker.tar`);
  const t0 = Date.now();
  if (process.env.SI_E2E_NO_BUILD !== '1' || !existsSync(archive)) {
    const built = spawnSync('npm', ['run', '-s', 'image'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
    if (built.status !== 0) {
      process.stderr.write('e2e: npm run image failed\n');
      return null;
    }
  }
  loadImage(node, archive);
  process.stderr.write(`e2e: ${reference} built and imported into the node in ${((Date.now() - t0) / 1000).toFixed(1)}s\n`);
  return reference;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`e2e: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
