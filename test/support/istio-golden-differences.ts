/**
 * @module test/support/istio-golden-differences
 * Istio's goldens our injection does not reproduce exactly, each with its reason. The golden
 * comparison is gated on this list (src/istio/istio-conformance.test.ts): a golden that differs
 * and is not listed fails, and so does a listed one that has become identical (remove it).
 */
import type { CaseResult } from './istio-conformance.js';

export const GOLDEN_DIFFERENCES: Readonly<Record<string, string>> = {
  'merge-probers.yaml.injected':
    'the input was injected by an older Istio; Istio re-injects by keeping that stale istio-proxy as if the user had customised it (old args, env, postStart hook, probe timings); we strip the earlier injection its status annotation records and inject afresh',
  'hello-openshift.yaml.injected':
    "OpenShift: istiod reads the namespace's openshift.io/sa.scc.uid-range annotation from the cluster to choose the proxy's UID; we have no namespace lookup and use the configured 1337",
  'hello-openshift-custom-injection.yaml.injected':
    "OpenShift: as hello-openshift, plus istiod drops the user's runAsUser when it equals the app's (a cluster-assigned UID); without the namespace we keep what the user wrote",
  'sidecar-spire.yaml.injected':
    'with native sidecars Istio emits istio-proxy both as a container and as an init container (the custom spire template adds it to containers), a pod the apiserver rejects for the duplicate name; we keep only the native sidecar',
  'cronjob.yaml.injected':
    "istioctl kube-inject puts a CronJob's injected labels and annotations on spec.jobTemplate.metadata (the Job), not on the pod template; pods never see them. We put them on the pod template, as the webhook does",
  'cronjob-old-version.yaml.injected': 'as cronjob.yaml.injected (native sidecars off)',
};

/** Differences not explained by GOLDEN_DIFFERENCES, and stale entries of it. */
export function unexplainedGoldenDifferences(results: readonly CaseResult[]): string[] {
  const out: string[] = [];
  const differing = new Set<string>();
  for (const r of results) {
    for (const t of r.templates) {
      if (t.identical !== false) continue;
      differing.add(r.case.want);
      if (!(r.case.want in GOLDEN_DIFFERENCES)) out.push(`${r.case.want} ${t.where}: ${(t.differences ?? []).slice(0, 3).join('; ')}`);
    }
  }
  const ran = new Set(results.map((r) => r.case.want));
  for (const want of Object.keys(GOLDEN_DIFFERENCES)) {
    if (ran.has(want) && !differing.has(want)) out.push(`${want}: listed as different but now identical (remove it from GOLDEN_DIFFERENCES)`);
  }
  return out;
}
