/**
 * Pod-create latency where clusters live (issue 26): what each webhook adds to a pod create,
 * measured by the kube-apiserver itself, at 5, 50 and 200 pods/s, and for the first pods after
 * a server starts. See bench/README.md (`npm run bench:cluster`) for what each mode and number is.
 *
 *   npm run bench:cluster [-- --rates 5,50,200 --pods 200 --rounds 4 --write]
 *
 * Brings up a private control plane (SI_E2E_STATE, default a `cluster-bench` state directory;
 * stopped again at the end unless --keep-cluster), builds the Go peers (e2e/build/istio.sh,
 * e2e/build/floor.sh) and our bundle, runs every webhook on 127.0.0.1 in URL mode, and prints
 * the tables (`--write`: also into bench/RESULTS.md; `--json FILE`: the raw numbers).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { cli, kubectl, waitFor, type Obj } from '../e2e/lib/kube.js';
import { builtCli, buildProject, freePort, REPO_ROOT } from '../test/support/server-process.js';
import { ISTIO_MODULE_VERSION, writePeerConfigDir, findIstioPeer } from '../test/support/istio-peer.js';
import { option } from './lib/args.js';
import { benchEnv } from './lib/env.js';
import { createPods } from './lib/cluster-load.js';
import {
  benchPodFor,
  describeVariant,
  expectSidecar,
  FLOOR_PATCH_MODES,
  PATCH_LABELS,
  parseVariant,
  type PatchOp,
  withStatusOf,
  type PodShape,
  type Variant,
} from './lib/cluster-modes.js';
import { renderReport, type ClusterReport, type PatchInfo } from './lib/cluster-report.js';
import { runCold, runRate, type Mode } from './lib/cluster-run.js';
import { certsIn, floorSpec, hookServer, istioSpec, logDir, oursSpec, type ClusterCerts, type HookServer } from './lib/cluster-servers.js';
import {
  applyConfigs,
  buildScript,
  createModeNamespaces,
  deletePods,
  ensureCluster,
  floorConfig,
  forMode,
  namespaceOf,
  removeAll,
  stopCluster,
  webhookConfigIn,
  webhookNames,
} from './lib/cluster-setup.js';
import { writeResultsFile } from './lib/report.js';

const argv = process.argv.slice(2);
const has = (f: string): boolean => argv.includes(f);
const num = (name: string, dflt: number): number => {
  const v = Number(option(argv, name, String(dflt)));
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${name} must be a positive number`);
  return v;
};
const settings = {
  rates: option(argv, '--rates', '5,50,200').split(',').map(Number),
  pods: num('--pods', 200),
  rounds: num('--rounds', 4),
  warmup: num('--warmup', 20),
  coldPods: num('--cold-pods', 20),
  coldRuns: has('--no-cold') ? 0 : num('--cold-runs', 2),
  coldRate: num('--cold-rate', 5),
};
const shape = option(argv, '--pod', 'F1') as PodShape;
if (shape !== 'F1' && shape !== 'F2') throw new Error('--pod is F1 or F2');
const variants: Variant[] = argv.flatMap((a, i) => (a === '--variant' ? [parseVariant(argv[i + 1] ?? '')] : []));
const oursFlags = argv.flatMap((a) => (a.startsWith('--ours-flag=') ? [a.slice('--ours-flag='.length)] : []));
// --cpu-prof: every one of our servers writes a CPU profile (100 µs sampling) when it stops.
const profDir = join(REPO_ROOT, '.bench-tmp', 'cluster-profiles');
const nodeFlags = has('--cpu-prof') ? ['--cpu-prof', '--cpu-prof-interval', '100', '--cpu-prof-dir', profDir] : [];
const only = has('--modes') ? new Set(option(argv, '--modes').split(',')) : undefined;
const log = (line: string): void => console.error(`[bench:cluster] ${line}`);
// One exit guard per spawned server (server-process.ts): a dozen servers are expected here.
process.setMaxListeners(50);

/** POST a review to a server on 127.0.0.1: the JSON patch of its answer. */
async function patchFrom(server: HookServer, certs: ClusterCerts, review: Buffer): Promise<PatchOp[]> {
  const { request } = await import('node:https');
  const text = await new Promise<string>((resolve, reject) => {
    const r = request(
      {
        host: '127.0.0.1',
        port: server.spec.port,
        path: '/inject',
        method: 'POST',
        ca: readFileSync(certs.ca),
        agent: false,
        headers: { 'Content-Type': 'application/json', 'Content-Length': review.length },
      },
      (res) => {
        let body = '';
        res
          .setEncoding('utf8')
          .on('data', (c: string) => (body += c))
          .on('end', () => resolve(body));
      },
    );
    r.on('error', reject);
    r.end(review);
  });
  const patch = (JSON.parse(text) as { response?: { patch?: string } }).response?.patch;
  if (patch === undefined) throw new Error(`${server.spec.name} gave no patch for the recorded review: ${text.slice(0, 300)}`);
  return JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) as PatchOp[];
}

async function main(): Promise<void> {
  if (!has('--no-build')) buildProject();
  const work = join(REPO_ROOT, '.bench-tmp', 'cluster-run');
  mkdirSync(work, { recursive: true });
  const env = benchEnv();
  log(
    `load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  const istioDir = buildScript('istio.sh');
  const floorBin = buildScript('floor.sh');
  const peer = findIstioPeer(istioDir);
  if (peer === undefined) throw new Error(`e2e/build/istio.sh built ${istioDir}, but its files are incomplete`);
  const configDir = writePeerConfigDir(peer, join(work, 'istio-config'), { nativeSidecars: true });
  const cluster = await ensureCluster(log);
  const trust = cluster.trust;
  const target = { trust, controlPlane: cluster.state.daemons.filter((d) => d.name === 'kube-apiserver' || d.name === 'etcd').map((d) => d.pid) };
  const certs = certsIn(join(work, 'certs'));
  const servers: HookServer[] = [];
  const modes: Mode[] = [];
  const want = (name: string): boolean => only === undefined || only.has(name) || ['floor', 'istio'].includes(name);
  try {
    // Ours: the configuration `manifests` writes for the URL (it also issues the certificate for 127.0.0.1).
    const ours = async (name: string, policy: 'IfNeeded' | 'Never', variant?: Variant): Promise<{ server: HookServer; config: Obj }> => {
      const port = await freePort();
      const url = `https://127.0.0.1:${port}`;
      const yaml = (
        await cli([
          'manifests',
          '--webhook-url',
          url,
          '--certs-dir',
          certs.dir,
          '--name',
          `si-bench-${name}`,
          '--config',
          configDir,
          '--reinvocation-policy',
          policy,
        ])
      ).stdout;
      const cliPath = variant?.dir !== undefined ? join(variant.dir, 'dist', 'bin', 'sidecar-injector.mjs') : builtCli();
      const server = hookServer(
        oursSpec(
          name,
          port,
          certs,
          configDir,
          [...oursFlags, ...(variant?.flags ?? [])],
          cliPath,
          nodeFlags.length > 0 ? [...nodeFlags, '--cpu-prof-name', `${name}.${Date.now()}.cpuprofile`] : [],
        ),
        certs,
      );
      return { server, config: forMode(webhookConfigIn(yaml), name) };
    };
    const configs: Obj[] = [];
    const add = (name: string, server: HookServer | undefined, config: Obj | undefined, pod: Obj, sidecar: boolean): void => {
      if (server !== undefined) servers.push(server);
      if (config !== undefined) configs.push(config);
      modes.push({ name, server, webhooks: config !== undefined ? webhookNames(config) : [], pod, check: expectSidecar(sidecar) });
    };
    const pod = benchPodFor(shape);
    const skipPod = benchPodFor(shape, true);
    const caBundle = () => readFileSync(certs.ca).toString('base64');
    if (want('ours-skip')) {
      const o = await ours('ours-skip', 'IfNeeded');
      add('ours-skip', o.server, o.config, skipPod, false);
    }
    if (want('ours-ifneeded')) {
      const o = await ours('ours-ifneeded', 'IfNeeded');
      add('ours-ifneeded', o.server, o.config, pod, true);
    }
    const never = await ours('ours-never', 'Never');
    if (want('ours-never')) add('ours-never', never.server, never.config, pod, true);
    for (const v of variants) {
      const o = await ours(v.name, 'Never', v);
      add(v.name, o.server, o.config, pod, true);
    }
    if (want('none')) add('none', undefined, undefined, pod, false);
    const floorPort = await freePort();
    const review = join(work, 'review.json');
    add(
      'floor',
      hookServer(floorSpec('floor', floorPort, certs, floorBin, ['-record', review]), certs),
      floorConfig('floor', `https://127.0.0.1:${floorPort}/inject`, caBundle()),
      pod,
      false,
    );
    const istioPort = await freePort();
    const istio = hookServer(istioSpec('istio', istioPort, certs, peer), certs);
    const istioConfig = forMode(
      webhookConfigIn(readFileSync(join(istioDir, 'config', 'manifest.yaml'), 'utf8'), 'istio-sidecar-injector'),
      'istio',
      `https://127.0.0.1:${istioPort}/inject`,
      caBundle(),
    );
    add('istio', istio, istioConfig, pod, true);
    if (!servers.includes(never.server)) servers.push(never.server);

    for (const s of servers) log(`${s.spec.name} ready in ${(await s.start()).toFixed(0)} ms`);
    await createModeNamespaces([...modes.map((m) => m.name), ...FLOOR_PATCH_MODES]);
    await applyConfigs(configs);
    // The apiserver picks configurations up asynchronously: wait until each mode's first pod is as it should be.
    const ready = async (m: Mode): Promise<void> => {
      await waitFor(
        `the apiserver to call ${m.name}'s webhook`,
        async () => {
          const problem = (await createPods(trust, namespaceOf(m.name), m.pod, 1, 1, m.check))[0]?.problem;
          if (problem !== undefined) throw new Error(problem);
          return true;
        },
        60_000,
        500,
      );
    };
    for (const m of modes) await ready(m);

    // The review as the apiserver sends it (recorded by the floor): our patch and Istio's for it,
    // then the floor answering each, to measure the apiserver's own work on the patch.
    const recorded = readFileSync(review);
    const patches: PatchInfo[] = [];
    const oursPatch = await patchFrom(never.server, certs, recorded);
    const istioPatch = await patchFrom(istio, certs, recorded);
    for (const [name, patch] of [
      ['ours', oursPatch],
      ['istio', istioPatch],
      // Ours with Istio's status annotation in place of ours: the share of the status's size.
      ['ours-istio-status', withStatusOf(oursPatch, istioPatch)],
    ] as const) {
      const file = join(work, `${name}-patch.json`);
      // The token volume's name is random per pod: the floor puts each review's own in its place.
      const token = /kube-api-access-[a-z0-9]{5}/.exec(recorded.toString('utf8'))?.[0];
      const text = JSON.stringify(patch);
      writeFileSync(file, token === undefined ? text : text.split(token).join('KUBE_API_ACCESS'));
      patches.push({ server: PATCH_LABELS[name], bytes: Buffer.byteLength(JSON.stringify(patch)), ops: patch.length });
      const mode = `floor-${name}-patch`;
      if (!want(mode)) continue;
      const port = await freePort();
      const server2 = hookServer(floorSpec(mode, port, certs, floorBin, ['-patch', file]), certs);
      log(`${mode} ready in ${(await server2.start()).toFixed(0)} ms`);
      servers.push(server2);
      const config = floorConfig(mode, `https://127.0.0.1:${port}/inject`, caBundle());
      await applyConfigs([config]);
      const m: Mode = { name: mode, server: server2, webhooks: webhookNames(config), pod, check: expectSidecar(true) };
      modes.push(m);
      await ready(m);
    }
    if (!modes.some((m) => m.name === 'ours-never')) {
      await never.server.stop();
      servers.splice(servers.indexOf(never.server), 1);
    }
    log(`modes: ${modes.map((m) => m.name).join(', ')}`);
    if (settings.warmup > 0) await runRate(target, modes, { rate: settings.rates[0], pods: settings.warmup, rounds: 1, log });
    await deletePods(modes.map((m) => m.name));

    const rates = [];
    for (const rate of settings.rates) {
      rates.push(await runRate(target, modes, { rate, pods: settings.pods, rounds: settings.rounds, log }));
      await deletePods(modes.map((m) => m.name));
    }
    const coldModes = modes.filter(
      (m) => m.server !== undefined && (m.name === 'floor' || m.name === 'istio' || (m.name.startsWith('ours-') && m.name !== 'ours-skip')),
    );
    const cold =
      settings.coldRuns > 0
        ? await runCold(target, coldModes, { rate: settings.coldRate, pods: settings.coldPods, rounds: 1, runs: settings.coldRuns, log })
        : [];
    const version = JSON.parse((await kubectl(['version', '-o', 'json'])).stdout) as Obj;
    const report: ClusterReport = {
      env: {
        date: env.date,
        commit: env.commit,
        dirty: env.dirty,
        node: process.version,
        cpu: cpus()[0]?.model ?? 'unknown',
        cores: cpus().length,
        loadStart: env.loadStart,
        loadEnd: loadavg().map((x) => Math.round(x * 100) / 100),
        kubernetes: String(version.serverVersion?.gitVersion ?? 'unknown'),
        istio: ISTIO_MODULE_VERSION,
        pod: shape,
        reviewBytes: recorded.length,
      },
      settings: {
        rates: settings.rates,
        pods: settings.pods,
        rounds: settings.rounds,
        coldPods: settings.coldPods,
        coldRuns: settings.coldRuns,
        coldRate: settings.coldRate,
      },
      rates,
      cold,
      patches,
      variants: Object.fromEntries(variants.map((v) => [v.name, describeVariant(v)])),
    };
    const md = renderReport(report);
    console.log(md);
    if (has('--json')) writeFileSync(option(argv, '--json'), JSON.stringify(report, null, 1));
    if (has('--write'))
      writeResultsFile(join(REPO_ROOT, 'bench', 'RESULTS.md'), md, { start: '<!-- cluster-results:start -->', end: '<!-- cluster-results:end -->' });
    log(`server logs in ${logDir()}`);
  } finally {
    for (const s of servers) await s.stop();
    await deletePods(modes.map((m) => m.name)).catch(() => undefined);
    await removeAll([...modes.map((m) => m.name), ...FLOOR_PATCH_MODES]);
    await stopCluster(cluster, has('--keep-cluster'), log);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exitCode = 1;
});
