/**
 * @module test/support/istio-deviations
 * The short list of intended deviations from the live Istio peer (istioctl kube-inject), each
 * with its reason and the test that pins our side of it. A difference that no entry matches is
 * unexplained, and fails `npm test` (src/istio/istio-peer-differential.test.ts).
 */
import type { JsonObject } from '../../src/util/json.js';

/** What one side (ours or Istio's) did with a workload. */
type Decision = 'injected' | 'skipped' | 'refused';

export interface Outcome {
  decision: Decision;
  /** The pod template (metadata + spec), normalised; for injected and skipped. */
  template?: JsonObject;
  error?: string;
}

export interface DiffCase {
  workload: JsonObject;
  native: boolean;
  istio: Outcome;
  ours: Outcome;
  /** Paths where the injected templates differ (empty when the decisions differ). */
  diffs: string[];
}

export interface Deviation {
  id: string;
  reason: string;
  /** The test that pins our behaviour. */
  pinnedBy: string;
  matches: (c: DiffCase) => boolean;
}

const SYSTEM_NAMESPACES = new Set(['kube-system', 'kube-public', 'kube-node-lease', 'local-path-storage']);

type Obj = Record<string, unknown>;
const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

/** Whether two containers of the template Istio produced declare the same port and protocol. */
function duplicatePort(template: JsonObject | undefined): boolean {
  const spec = (template?.spec ?? {}) as Obj;
  const seen = new Set<string>();
  // Containers and native sidecars run together; ordinary init containers run before them.
  const running = [...list(spec.containers), ...list(spec.initContainers).filter((c) => c.restartPolicy === 'Always')];
  for (const c of running) {
    const mine = new Set(list(c.ports).map((p) => `${String(p.protocol ?? 'TCP')}/${String(p.containerPort)}`));
    for (const k of mine) {
      if (seen.has(k)) return true;
    }
    for (const k of mine) seen.add(k);
  }
  return false;
}

const ourError = (c: DiffCase, re: RegExp) => c.ours.decision === 'refused' && c.ours.error !== undefined && re.test(c.ours.error);

export const INTENDED_DEVIATIONS: readonly Deviation[] = [
  {
    id: 'port-conflict',
    reason:
      'a container declares a port the injected proxy also declares (15090, 15021, or one the user gave istio-proxy): Istio admits a pod whose two containers fight over one port; we refuse it and name the container and the port',
    pinnedBy: 'src/inject/pipeline.test.ts ("declares port TCP/15090")',
    matches: (c) => c.istio.decision === 'injected' && ourError(c, /^SI_INJECT_CONFLICT: .*declares port/) && duplicatePort(c.istio.template),
  },
  {
    id: 'no-containers-left',
    reason:
      'every container is named like a sidecar the template injects as a native init container (istio-proxy): Istio emits "containers: []", which the apiserver rejects; we refuse with a reason',
    pinnedBy: 'src/inject/pipeline.test.ts ("no containers left"); Istio golden only-proxy-container',
    matches: (c) =>
      c.istio.decision === 'injected' &&
      ourError(c, /^SI_INJECT_CONFLICT: .*no containers left/) &&
      list((c.istio.template?.spec as Obj | undefined)?.containers).length === 0,
  },
  {
    id: 'kube-inject-system-namespace',
    reason:
      "istioctl kube-inject checks a workload's pod template for Istio's system namespaces, and a template carries no namespace, so it injects a Deployment in kube-system (or fails on its bad annotations while trying); istiod's webhook never injects pods there, and we skip them",
    pinnedBy: 'src/inject/decide.test.ts ("manual mode ... ignored-namespace"); src/istio/istio-peer-differential.test.ts',
    matches: (c) =>
      c.istio.decision !== 'skipped' &&
      c.ours.decision === 'skipped' &&
      c.workload.kind !== 'Pod' &&
      SYSTEM_NAMESPACES.has(String((c.workload.metadata as Obj).namespace)),
  },
  {
    id: 'kube-inject-proxy-config-before-decision',
    reason:
      "istioctl kube-inject parses proxy.istio.io/config before deciding, so a bad value fails even a workload it would skip (opted out, host network, system namespace); istiod's webhook decides first and skips it, as we do",
    pinnedBy: 'src/istio/istio-peer-differential.test.ts',
    matches: (c) => c.istio.decision === 'refused' && c.ours.decision === 'skipped' && /could not parse proxy config/.test(c.istio.error ?? ''),
  },
];
