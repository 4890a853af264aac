/**
 * @module istio/validate-annotations
 * Istio's check of the pod annotations that steer injection (pkg/kube/inject/validate.go):
 * a bad value fails the injection with a message naming the annotation, instead of rendering a
 * sidecar with broken iptables arguments. Same rules and wording as Istio ("invalid value 'X'
 * for annotation 'Y': ..."), every problem listed at once. The annotations are Istio's fixed
 * names, which the built-in template reads too.
 */
import { InjectionError } from '../errors.js';
import {
  excludeIPRangesRule,
  includeInboundPortsRule,
  includeIPRangesRule,
  interceptionModeRule,
  portListRule,
  quantityRule,
  statusPortRule,
  uint32Rule,
  type ValueRule,
} from '../config/value-rules.js';
import { parseProxyConfigAnnotation, PROXY_CONFIG_ANNOTATION } from './mesh-config.js';

type Check = ValueRule;

const bool: Check = (v) =>
  ['1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)
    ? undefined
    : `strconv.ParseBool: parsing "${v}": invalid syntax`;

/** netutil.ValidateInterfaceNames (excludeInterfaces, kubevirtInterfaces, reroute-virtual-interfaces). */
const interfaces: Check = (v) => {
  if (v.length === 0) return undefined;
  for (const raw of v.split(',')) {
    const name = raw.trim();
    if (name.length === 0) return 'empty interface name';
    if (name.length > 15) return `interface name "${name}" too long (max 15 chars)`;
    if (!/^[a-zA-Z][a-zA-Z0-9_.-]*$/.test(name)) return `interface name "${name}" contains invalid characters`;
  }
  return undefined;
};

// The rules shared with the built-in template's values live in config/value-rules.
const CHECKS: Record<string, Check> = {
  'sidecar.istio.io/proxyCPU': quantityRule,
  'sidecar.istio.io/proxyMemory': quantityRule,
  'sidecar.istio.io/proxyCPULimit': quantityRule,
  'sidecar.istio.io/proxyMemoryLimit': quantityRule,
  'traffic.sidecar.istio.io/excludeInterfaces': interfaces,
  'traffic.sidecar.istio.io/kubevirtInterfaces': interfaces,
  'istio.io/reroute-virtual-interfaces': interfaces,
  'sidecar.istio.io/interceptionMode': interceptionModeRule,
  'status.sidecar.istio.io/port': statusPortRule,
  'readiness.status.sidecar.istio.io/initialDelaySeconds': uint32Rule,
  'readiness.status.sidecar.istio.io/periodSeconds': uint32Rule,
  'readiness.status.sidecar.istio.io/failureThreshold': uint32Rule,
  'traffic.sidecar.istio.io/includeOutboundIPRanges': includeIPRangesRule,
  'traffic.sidecar.istio.io/excludeOutboundIPRanges': excludeIPRangesRule,
  'traffic.sidecar.istio.io/includeInboundPorts': includeInboundPortsRule,
  'traffic.sidecar.istio.io/excludeInboundPorts': portListRule('excludeInboundPorts'),
  'traffic.sidecar.istio.io/excludeOutboundPorts': portListRule('excludeOutboundPorts'),
  'prometheus.istio.io/merge-metrics': bool,
  [PROXY_CONFIG_ANNOTATION]: (v) => {
    try {
      parseProxyConfigAnnotation(v);
      return undefined;
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  },
};

/** Throw InjectionError SI_INJECT_ANNOTATION listing every invalid annotation. */
export function validateIstioAnnotations(annotations: Readonly<Record<string, unknown>>): void {
  const problems: string[] = [];
  const names: string[] = [];
  for (const name of Object.keys(CHECKS).sort()) {
    if (!Object.hasOwn(annotations, name)) continue;
    const value = annotations[name];
    if (typeof value !== 'string') continue;
    const e = CHECKS[name](value);
    if (e !== undefined) {
      problems.push(`invalid value '${value}' for annotation '${name}': ${e}`);
      names.push(name);
    }
  }
  if (problems.length === 0) return;
  throw new InjectionError(
    'SI_INJECT_ANNOTATION',
    problems.length === 1 ? problems[0] : `${problems.length} annotations are invalid:\n  ${problems.join('\n  ')}`,
    {
      details: { annotations: names },
    },
  );
}
