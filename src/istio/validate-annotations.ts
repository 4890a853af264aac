/**
 * @module istio/validate-annotations
 * Istio's check of the pod annotations that steer injection (pkg/kube/inject/validate.go):
 * a bad value fails the injection with a message naming the annotation, instead of rendering a
 * sidecar with broken iptables arguments. Same rules and wording as Istio ("invalid value 'X'
 * for annotation 'Y': ..."), every problem listed at once. The annotations are Istio's fixed
 * names, which the built-in template reads too.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { InjectionError } from '../errors.js';
import { parseProxyConfigAnnotation, PROXY_CONFIG_ANNOTATION } from './mesh-config.js';

type Check = (value: string) => string | undefined;

const uint32: Check = (v) => (/^\d+$/.test(v) && Number(v) <= 0xffffffff ? undefined : `strconv.ParseUint: parsing "${v}": invalid syntax`);

const bool: Check = (v) =>
  ['1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)
    ? undefined
    : `strconv.ParseBool: parsing "${v}": invalid syntax`;

function parsePort(text: string): string | undefined {
  const t = text.trim();
  if (/^\d+$/.test(t) && Number(t) <= 65535) return undefined;
  return `failed parsing port '${text}': strconv.ParseUint: parsing "${t}": ${/^\d+$/.test(t) ? 'value out of range' : 'invalid syntax'}`;
}

function portList(name: string): Check {
  return (v) => {
    const s = v.trim();
    if (s === '') return undefined;
    for (const p of s.split(',')) {
      const e = parsePort(p);
      if (e !== undefined) return `${name} invalid: failed parsing port '${p}': ${e}`;
    }
    return undefined;
  };
}

/** Go's netip.ParsePrefix: an address (no zone) and a prefix length within its family's bits. */
function prefixError(cidr: string): string | undefined {
  const slash = cidr.lastIndexOf('/');
  if (slash < 0) return `netip.ParsePrefix("${cidr}"): no '/'`;
  const addr = cidr.slice(0, slash);
  const bits = cidr.slice(slash + 1);
  const v4 = isIPv4(addr);
  const v6 = !v4 && isIPv6(addr) && !addr.includes('%');
  if (!v4 && !v6) return `netip.ParsePrefix("${cidr}"): ParseAddr("${addr}"): unable to parse IP`;
  if (!/^(0|[1-9]\d*)$/.test(bits) || Number(bits) > (v4 ? 32 : 128)) return `netip.ParsePrefix("${cidr}"): bad bits after slash: "${bits}"`;
  return undefined;
}

function cidrList(v: string): string | undefined {
  if (v.length === 0) return undefined;
  for (const c of v.split(',')) {
    const e = prefixError(c);
    if (e !== undefined) return `failed parsing cidr '${c}': ${e}`;
  }
  return undefined;
}

/** resource.ParseQuantity's format check (validateResourceQuantity), with Go's error texts. */
const quantity: Check = (v) => {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(v)) return 'value contains control characters';
  const m = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/.exec(v);
  if (m === null) return "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  const suffix = m[2];
  if (suffix !== '' && !/^(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][-+]?\d+)$/.test(suffix)) return "unable to parse quantity's suffix";
  if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(m[1])) return "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  return undefined;
};

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

const CHECKS: Record<string, Check> = {
  'sidecar.istio.io/proxyCPU': quantity,
  'sidecar.istio.io/proxyMemory': quantity,
  'sidecar.istio.io/proxyCPULimit': quantity,
  'sidecar.istio.io/proxyMemoryLimit': quantity,
  'traffic.sidecar.istio.io/excludeInterfaces': interfaces,
  'traffic.sidecar.istio.io/kubevirtInterfaces': interfaces,
  'istio.io/reroute-virtual-interfaces': interfaces,
  'sidecar.istio.io/interceptionMode': (v) =>
    ['REDIRECT', 'TPROXY', 'NONE'].includes(v) ? undefined : `interceptionMode invalid, use REDIRECT,TPROXY,NONE: ${v}`,
  'status.sidecar.istio.io/port': (v) => {
    const e = parsePort(v);
    return e === undefined ? undefined : `excludeInboundPorts invalid: ${e}`;
  },
  'readiness.status.sidecar.istio.io/initialDelaySeconds': uint32,
  'readiness.status.sidecar.istio.io/periodSeconds': uint32,
  'readiness.status.sidecar.istio.io/failureThreshold': uint32,
  'traffic.sidecar.istio.io/includeOutboundIPRanges': (v) => {
    if (v === '*') return undefined;
    const e = cidrList(v);
    return e === undefined ? undefined : `includeIPRanges invalid: ${e}`;
  },
  'traffic.sidecar.istio.io/excludeOutboundIPRanges': (v) => {
    const e = cidrList(v);
    return e === undefined ? undefined : `excludeIPRanges invalid: ${e}`;
  },
  'traffic.sidecar.istio.io/includeInboundPorts': (v) => (v === '*' ? undefined : portList('includeInboundPorts')(v)),
  'traffic.sidecar.istio.io/excludeInboundPorts': portList('excludeInboundPorts'),
  'traffic.sidecar.istio.io/excludeOutboundPorts': portList('excludeOutboundPorts'),
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
