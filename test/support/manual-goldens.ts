/**
 * @module test/support/manual-goldens
 * The golden-file harness of manual injection: which cases exist (every `testdata/inject/X.yaml`
 * with the built-in config, every `examples/NAME/app.yaml` with its own config), which files a
 * case may own (so stale goldens are caught), and the webhook leg's pod builder: the pod the
 * apiserver would send for a workload's template (namespace, owner reference, the controller's
 * labels), and what to strip again before comparing with `inject -f`.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PodTemplateRef } from '../../src/manifest-io/index.js';
import { cloneJson, isPlainObject, type JsonObject } from '../../src/util/json.js';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
const GOLDEN_DIR = 'testdata/inject';
const EXAMPLES_DIR = 'examples';
/** Example directories that are not injection examples. */
const NOT_INJECTION_EXAMPLES = new Set(['template', 'admission']);

export interface GoldenCase {
  name: string;
  /** Input path, relative to the repository (what the CLI is given). */
  input: string;
  /** `--config` path, relative to the repository; none: the built-in config. */
  config?: string;
  /** Golden files (relative to the repository). */
  injected: string;
  stderr: string;
}

const GOLDEN_SUFFIXES = ['.injected.yaml', '.stderr'];

export function goldenCases(): GoldenCase[] {
  const cases: GoldenCase[] = [];
  const files = readdirSync(join(REPO, GOLDEN_DIR)).sort();
  for (const f of files) {
    if (!f.endsWith('.yaml') || GOLDEN_SUFFIXES.some((s) => f.endsWith(s))) continue;
    const name = f.slice(0, -'.yaml'.length);
    cases.push(withGoldens(name, `${GOLDEN_DIR}/${f}`));
  }
  for (const dir of readdirSync(join(REPO, EXAMPLES_DIR)).sort()) {
    if (NOT_INJECTION_EXAMPLES.has(dir) || !existsSync(join(REPO, EXAMPLES_DIR, dir, 'app.yaml'))) continue;
    const config = `${EXAMPLES_DIR}/${dir}/config.yaml`;
    cases.push(withGoldens(`example-${dir}`, `${EXAMPLES_DIR}/${dir}/app.yaml`, existsSync(join(REPO, config)) ? config : undefined));
  }
  return cases;
}

function withGoldens(name: string, input: string, config?: string): GoldenCase {
  return { name, input, ...(config ? { config } : {}), injected: `${GOLDEN_DIR}/${name}.injected.yaml`, stderr: `${GOLDEN_DIR}/${name}.stderr` };
}

/** Files in the golden directory that belong to no case (a golden whose input was removed or renamed). */
export function staleGoldens(cases: readonly GoldenCase[]): string[] {
  const owned = new Set<string>([`${GOLDEN_DIR}/README.md`]);
  for (const c of cases) for (const p of [c.input, c.injected, c.stderr]) owned.add(p);
  return readdirSync(join(REPO, GOLDEN_DIR))
    .map((f) => `${GOLDEN_DIR}/${f}`)
    .filter((p) => !owned.has(p));
}

export interface WebhookPod {
  pod: JsonObject;
  /** Undo what was added to make a Pod out of a template, so the result compares with the template. */
  strip(pod: JsonObject): JsonObject;
}

const HASH = '5d8f7c9b6';
const JOB_SUFFIX = '28391240';

/**
 * The pod as the webhook receives it, built from a template the way Istio's webhook leg does:
 * the namespace set, the controller's owner reference (ReplicaSet `NAME-HASH` with the
 * `pod-template-hash` label for a Deployment, Job `NAME-TIMESTAMP` for a CronJob, a
 * ReplicationController with the `deploymentconfig` label for a DeploymentConfig), and
 * `generateName` instead of a name. A bare Pod only gets its namespace.
 */
export function webhookPod(ref: PodTemplateRef, podObject: JsonObject, namespace: string): WebhookPod {
  const isPod = ref.owner.kind === 'Pod' && ref.path.length === ref.owner.path.length;
  const addedLabels: Record<string, string> = {};
  const meta: JsonObject = isPlainObject(podObject.metadata) ? cloneJson(podObject.metadata as JsonObject) : {};
  const hadNamespace = typeof meta.namespace === 'string' && meta.namespace !== '';
  const hadLabels = Object.hasOwn(meta, 'labels');
  const hadName = Object.hasOwn(meta, 'name');
  const originalName = meta.name;
  if (!hadNamespace) meta.namespace = namespace;
  let owner: JsonObject | undefined;
  if (!isPod) {
    const name = ref.owner.name;
    const ctl = (apiVersion: string, kind: string, ownerName: string): JsonObject => ({
      apiVersion,
      kind,
      name: ownerName,
      uid: '00000000-0000-0000-0000-000000000001',
      controller: true,
      blockOwnerDeletion: true,
    });
    switch (ref.owner.kind) {
      case 'Deployment':
        addedLabels['pod-template-hash'] = HASH;
        owner = ctl('apps/v1', 'ReplicaSet', `${name}-${HASH}`);
        break;
      case 'CronJob':
        owner = ctl('batch/v1', 'Job', `${name}-${JOB_SUFFIX}`);
        break;
      case 'DeploymentConfig':
        addedLabels.deploymentconfig = name;
        owner = ctl('v1', 'ReplicationController', `${name}-1`);
        break;
      default:
        owner = ctl(ref.owner.apiVersion, ref.owner.kind, name);
    }
    // An empty labels map is not what a controller's pod has (Go omits it): only when there is one.
    if (hadLabels || Object.keys(addedLabels).length > 0) meta.labels = { ...(isPlainObject(meta.labels) ? (meta.labels as JsonObject) : {}), ...addedLabels };
    meta.ownerReferences = [owner];
    // Pods of controllers arrive with generateName and no name.
    delete meta.name;
    meta.generateName = `${String(owner.name)}-`;
  }
  const pod: JsonObject = { apiVersion: 'v1', kind: 'Pod', metadata: meta, spec: cloneJson(podObject.spec as JsonObject) };
  const strip = (result: JsonObject): JsonObject => {
    const m = cloneJson(result.metadata as JsonObject);
    if (!hadNamespace) delete m.namespace;
    if (!isPod) {
      delete m.ownerReferences;
      delete m.generateName;
      if (hadName) m.name = originalName as JsonObject[string];
      const labels = isPlainObject(m.labels) ? (m.labels as JsonObject) : {};
      for (const k of Object.keys(addedLabels)) delete labels[k];
      if (!hadLabels && Object.keys(labels).length === 0) delete m.labels;
    }
    return { metadata: m, spec: result.spec as JsonObject };
  };
  return { pod, strip };
}
