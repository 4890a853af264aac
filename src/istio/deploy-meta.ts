/**
 * @module istio/deploy-meta
 * Which workload a pod belongs to, for `.TypeMeta` and `.DeploymentMeta` (the sidecar reports
 * it as ISTIO_META_WORKLOAD_NAME / ISTIO_META_OWNER). The CLI knows the workload and passes it
 * as `ctx.owner`; the webhook only sees the pod, so the workload is guessed from the controller
 * owner reference exactly as Istio's GetDeployMetaFromPod does: a ReplicaSet `x-<hash>` whose
 * hash is the pod's `pod-template-hash` label is Deployment `x` (Argo Rollouts likewise), a
 * ReplicationController of an OpenShift DeploymentConfig is that DeploymentConfig, a Job named
 * `x-<8 to 10 digits>` is CronJob `x`; otherwise the controller itself. Only pods with
 * `generateName` are investigated (Istio's rule: a named pod is its own workload).
 * Ours: a pod with neither name nor controller is named after its `generateName`, without the
 * trailing dash, rather than "".
 */
import { isPlainObject } from '../util/json.js';
import type { ObjectMeta, Pod } from '../inject/pod-types.js';
import type { InjectionContext } from '../inject/types.js';

export interface DeployMeta {
  typeMeta: { kind: string; apiVersion: string };
  deployMeta: { name: string; namespace: string };
}

const CRONJOB_JOB_NAME = /^(.+)-\d{8,10}$/;

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** `pod` is validated: its metadata, name, generateName and labels are typed (ownerReferences are not). */
export function deployMetaOf(pod: Pod, namespace: string, owner: InjectionContext['owner']): DeployMeta {
  const meta: ObjectMeta = pod.metadata ?? {};
  const labels = meta.labels ?? {};
  if (owner !== undefined && owner.kind !== 'Pod') {
    return {
      typeMeta: { kind: owner.kind, apiVersion: owner.apiVersion ?? '' },
      deployMeta: { name: owner.name, namespace },
    };
  }
  const name = str(meta.name);
  const generateName = str(meta.generateName);
  const typeMeta = { kind: 'Pod', apiVersion: 'v1' };
  const deployMeta = { name, namespace };
  if (generateName !== '') {
    const refs = Array.isArray(meta.ownerReferences) ? meta.ownerReferences : [];
    const controller = refs.find((r): r is Record<string, unknown> => isPlainObject(r) && r.controller === true);
    if (controller !== undefined) {
      typeMeta.apiVersion = str(controller.apiVersion);
      typeMeta.kind = str(controller.kind);
      const ref = str(controller.name);
      deployMeta.name = ref;
      const hash = labels['pod-template-hash'] ?? '';
      const rolloutHash = labels['rollouts-pod-template-hash'] ?? '';
      if (typeMeta.kind === 'ReplicaSet' && hash !== '' && ref.endsWith(hash)) {
        deployMeta.name = trimSuffix(ref, `-${hash}`);
        typeMeta.kind = 'Deployment';
      } else if (typeMeta.kind === 'ReplicaSet' && rolloutHash !== '' && ref.endsWith(rolloutHash)) {
        deployMeta.name = trimSuffix(ref, `-${rolloutHash}`);
        typeMeta.kind = 'Rollout';
        typeMeta.apiVersion = 'v1alpha1';
      } else if (typeMeta.kind === 'ReplicationController' && (labels.deploymentconfig ?? '') !== '') {
        deployMeta.name = labels.deploymentconfig;
        typeMeta.kind = 'DeploymentConfig';
      } else if (typeMeta.kind === 'Job') {
        const m = CRONJOB_JOB_NAME.exec(ref);
        if (m !== null) {
          deployMeta.name = m[1];
          typeMeta.kind = 'CronJob';
          typeMeta.apiVersion = 'batch/v1';
        }
      }
    }
  }
  if (deployMeta.name === '') deployMeta.name = name !== '' ? name : generateName.replace(/-+$/, '');
  return { typeMeta, deployMeta };
}

function trimSuffix(s: string, suffix: string): string {
  return s.endsWith(suffix) ? s.slice(0, s.length - suffix.length) : s;
}
