/**
 * @module check/restricted
 * The Pod Security Standards "restricted" profile (k8s.io/pod-security-admission, policy
 * version latest), checked for the containers a sidecar adds: a namespace enforcing it would
 * refuse every injected pod. Reported, not fatal: many meshes need an init container with
 * NET_ADMIN and run under "baseline" or "privileged" on purpose.
 */
import { isPlainObject } from '../util/json.js';

type Obj = Record<string, unknown>;

const RESTRICTED_VOLUMES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];

/** Why `container` (in `pod`) fails "restricted"; empty when it passes. */
export function restrictedFailures(container: Obj, pod: Obj): string[] {
  const out: string[] = [];
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  const podSc = isPlainObject(spec.securityContext) ? spec.securityContext : {};
  const sc = isPlainObject(container.securityContext) ? container.securityContext : {};
  if (sc.privileged === true) out.push('privileged: true');
  if (sc.allowPrivilegeEscalation !== false) out.push('allowPrivilegeEscalation is not false');
  const caps = isPlainObject(sc.capabilities) ? sc.capabilities : {};
  const drop = Array.isArray(caps.drop) ? caps.drop : [];
  if (!drop.includes('ALL')) out.push('capabilities.drop does not include ALL');
  const add = (Array.isArray(caps.add) ? caps.add : []).filter((c) => c !== 'NET_BIND_SERVICE');
  if (add.length > 0) out.push(`capabilities.add ${JSON.stringify(add)} (only NET_BIND_SERVICE is allowed)`);
  const runAsNonRoot = sc.runAsNonRoot ?? podSc.runAsNonRoot;
  if (runAsNonRoot !== true) out.push('runAsNonRoot is not true');
  const runAsUser = sc.runAsUser ?? podSc.runAsUser;
  if (runAsUser === 0) out.push('runAsUser is 0 (root)');
  const seccomp = (isPlainObject(sc.seccompProfile) ? sc.seccompProfile : isPlainObject(podSc.seccompProfile) ? podSc.seccompProfile : {}) as Obj;
  if (seccomp.type !== 'RuntimeDefault' && seccomp.type !== 'Localhost') out.push('seccompProfile.type is not RuntimeDefault or Localhost');
  if (Array.isArray(container.ports) && container.ports.some((p) => isPlainObject(p) && typeof p.hostPort === 'number' && p.hostPort !== 0))
    out.push('hostPort is set');
  return out;
}

/** Volumes (by name) of types "restricted" forbids (hostPath and the rest). */
export function restrictedVolumeFailures(volume: Obj): string | undefined {
  const source = Object.keys(volume).filter((k) => k !== 'name');
  const bad = source.filter((k) => !RESTRICTED_VOLUMES.includes(k));
  return bad.length > 0 ? `volume type ${bad.join(', ')} is not allowed` : undefined;
}
