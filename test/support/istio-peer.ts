/**
 * @module test/support/istio-peer
 * The live Istio peer built by e2e/build/istio.sh: the real `istioctl` (pinned istio.io/istio
 * module version), the config files rendered by that same istioctl, and our config built from
 * those very files, so that the peer and our injector always see identical templates and values.
 *
 * `kubeInject` runs `istioctl kube-inject` offline (`-r default`, or a revision: `-r` keeps it
 * from looking for a cluster, and is the `.Revision` Istio's templates and status annotation get) on a whole batch of documents at once to amortise istioctl's start-up. kube-inject
 * stops at the first document it refuses, so a failed batch is bisected down to the documents
 * that fail on their own.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { parseConfig } from '../../src/profiles/index.js';
import type { LoadedConfig } from '../../src/config/types.js';
import type { JsonObject, JsonValue } from '../../src/util/json.js';

/** The pinned module version (same as ISTIO_MODULE_VERSION in e2e/build/istio.sh). */
export const ISTIO_MODULE_VERSION = 'v0.0.0-20260827124520-eed52ebb66ad';

export interface IstioPeer {
  dir: string;
  istioctl: string;
  injectorServer: string;
  /** Istio's gateway deployment templates rendered with Istio's own template code (e2e/build/istio/gateway-render). */
  gatewayRender: string;
  injectConfig: string;
  values: string;
  mesh: string;
}

/** Where e2e/build/istio.sh puts the build (SIDECAR_INJECTOR_CACHE, else XDG_CACHE_HOME, else ~/.cache). */
export function istioPeerDir(): string {
  const root = process.env.SIDECAR_INJECTOR_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'sidecar-injector');
  return join(root, 'e2e', `istio-${ISTIO_MODULE_VERSION}`);
}

/** The built peer, or undefined when e2e/build/istio.sh has not run (tests skip then). */
export function findIstioPeer(dir = istioPeerDir()): IstioPeer | undefined {
  const peer: IstioPeer = {
    dir,
    istioctl: join(dir, 'bin', 'istioctl'),
    injectorServer: join(dir, 'bin', 'istio-injector-server'),
    gatewayRender: join(dir, 'bin', 'istio-gateway-render'),
    injectConfig: join(dir, 'config', 'inject-config.yaml'),
    values: join(dir, 'config', 'values.json'),
    mesh: join(dir, 'config', 'mesh.yaml'),
  };
  return [peer.istioctl, peer.injectConfig, peer.values, peer.mesh].every((f) => existsSync(f)) ? peer : undefined;
}

/**
 * The `istio-sidecar-injector` ConfigMap as the peer's istioctl generated it (config/manifest.yaml,
 * the document a cluster gets and `kubectl get cm -o yaml` prints back), or undefined when the
 * manifest is not there.
 */
export function peerInjectorConfigMap(peer: IstioPeer): string | undefined {
  const manifest = join(peer.dir, 'config', 'manifest.yaml');
  if (!existsSync(manifest)) return undefined;
  const doc = readFileSync(manifest, 'utf8')
    .split(/^---[ \t]*$/m)
    .find((d) => /^kind: ConfigMap$/m.test(d) && /^ {2}name: istio-sidecar-injector$/m.test(d));
  return doc === undefined ? undefined : `${doc.replace(/^\n+/, '')}\n`;
}

/**
 * Our config from the peer's three files. Istio compatibility is switched on by hand here
 * (`nativeSidecars`, `values.istioPostProcessing`), and the mesh config goes where our config
 * takes it (`values.meshConfig`; Istio reads it from its own ConfigMap).
 */
function peerConfigTexts(peer: IstioPeer, options: { nativeSidecars: boolean }): { config: string; values: string } {
  const values = JSON.parse(readFileSync(peer.values, 'utf8')) as JsonObject;
  const mesh = (parse(readFileSync(peer.mesh, 'utf8')) ?? {}) as JsonObject;
  return {
    config: `${readFileSync(peer.injectConfig, 'utf8')}\nnativeSidecars: ${options.nativeSidecars}\n`,
    values: JSON.stringify({ ...values, meshConfig: mesh, istioPostProcessing: true }, null, 2),
  };
}

/** With `revision`: as `serve --revision` loads it, the peer's `istioctl kube-inject -r REVISION`. */
export function peerConfig(peer: IstioPeer, options: { nativeSidecars: boolean; revision?: string }): LoadedConfig {
  const t = peerConfigTexts(peer, options);
  return parseConfig(t.config, t.values, 'istio-peer', options.revision === undefined ? {} : { revision: options.revision });
}

/** The same config as a directory in the ConfigMap layout (`config`, `values`), for `serve --config`. */
export function writePeerConfigDir(peer: IstioPeer, dir: string, options: { nativeSidecars: boolean }): string {
  const t = peerConfigTexts(peer, options);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config'), t.config);
  writeFileSync(join(dir, 'values'), t.values);
  return dir;
}

/** Istio's answer for one document: its output, or the error it refused it with. */
export type PeerResult = { ok: true; output: JsonValue } | { ok: false; error: string };

function runKubeInject(
  peer: IstioPeer,
  docs: readonly JsonValue[],
  nativeSidecars: boolean,
  revision: string,
): { ok: true; outputs: JsonValue[] } | { ok: false; error: string } {
  // JSON documents: YAML would let Go's YAML 1.1 reader turn `n`/`yes`/`on` into booleans.
  const input = docs.map((d) => JSON.stringify(d)).join('\n---\n');
  const r = spawnSync(
    peer.istioctl,
    [
      'kube-inject',
      '-f',
      '-',
      '--injectConfigFile',
      peer.injectConfig,
      '--meshConfigFile',
      peer.mesh,
      '--valuesFile',
      revisionValuesFile(peer, revision),
      '-r',
      revision,
    ],
    // ENABLE_NATIVE_SIDECARS: offline kube-inject has no nodes to look at; "true" is what istiod's
    // "auto" decides on Kubernetes >= 1.33.
    {
      input,
      encoding: 'utf8',
      maxBuffer: 512 * 1024 * 1024,
      timeout: 300_000,
      env: { ...process.env, ENABLE_NATIVE_SIDECARS: String(nativeSidecars), KUBECONFIG: '/dev/null' },
    },
  );
  if (r.error !== undefined) throw new Error(`running ${peer.istioctl}: ${r.error.message}`);
  if (r.status !== 0) return { ok: false, error: (r.stderr || r.stdout).trim() };
  const outputs = parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as JsonValue)
    .filter((d) => d !== null && d !== undefined);
  if (outputs.length !== docs.length) throw new Error(`istioctl kube-inject returned ${outputs.length} documents for ${docs.length}`);
  return { ok: true, outputs };
}

/**
 * The values a revision's istiod carries: Istio's chart renders `revision` into the revisioned
 * ConfigMap's values, and its template reads both `.Revision` (from `-r`) and
 * `.Values.revision` (e.g. CA_ADDR istiod-REVISION), so a revision is compared with both set.
 */
function revisionValuesFile(peer: IstioPeer, revision: string): string {
  if (revision === 'default') return peer.values;
  const file = join(tmpdir(), `si-istio-values-${revision}-${process.pid}.json`);
  if (!existsSync(file)) {
    writeFileSync(file, JSON.stringify({ ...(JSON.parse(readFileSync(peer.values, 'utf8')) as JsonObject), revision }));
    process.once('exit', () => rmSync(file, { force: true }));
  }
  return file;
}

/** Runs every document through `istioctl kube-inject -r REVISION`, batched; results in input order. */
export function kubeInject(
  peer: IstioPeer,
  docs: readonly JsonValue[],
  nativeSidecars: boolean,
  stats = { invocations: 0 },
  revision = 'default',
): PeerResult[] {
  const results: PeerResult[] = new Array(docs.length);
  const solve = (from: number, to: number): void => {
    stats.invocations++;
    const r = runKubeInject(peer, docs.slice(from, to), nativeSidecars, revision);
    if (r.ok) {
      r.outputs.forEach((output, i) => (results[from + i] = { ok: true, output }));
    } else if (to - from === 1) {
      results[from] = { ok: false, error: r.error };
    } else {
      const mid = from + Math.ceil((to - from) / 2);
      solve(from, mid);
      solve(mid, to);
    }
  };
  if (docs.length > 0) solve(0, docs.length);
  return results;
}
