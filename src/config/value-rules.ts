/**
 * @module config/value-rules
 * The value rules a pod annotation and a values key share: Istio's checks of the annotations
 * that steer injection (pkg/kube/inject/validate.go, with Go's error texts), kept here, below
 * both users, so `sidecar.istio.io/interceptionMode: REDIRCT` on a pod and
 * `interceptionMode: REDIRCT` in the values are judged by the same code. istio/validate-annotations
 * applies them to annotations, config/builtin-values to the built-in template's values.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** One rule: the problem with a string value, in Go's words, or undefined when it is valid. */
export type ValueRule = (value: string) => string | undefined;

/** Istio's interception modes (validate.go's validateInterceptionMode). */
export const INTERCEPTION_MODES: readonly string[] = Object.freeze(['REDIRECT', 'TPROXY', 'NONE']);

export const interceptionModeRule: ValueRule = (v) =>
  INTERCEPTION_MODES.includes(v) ? undefined : `interceptionMode invalid, use ${INTERCEPTION_MODES.join(',')}: ${v}`;

export const uint32Rule: ValueRule = (v) => (/^\d+$/.test(v) && Number(v) <= 0xffffffff ? undefined : `strconv.ParseUint: parsing "${v}": invalid syntax`);

/** A port, 0 to 65535 (Istio's parsePort: strconv.ParseUint with 16 bits). */
export function portError(text: string): string | undefined {
  const t = text.trim();
  if (/^\d+$/.test(t) && Number(t) <= 65535) return undefined;
  return `failed parsing port '${text}': strconv.ParseUint: parsing "${t}": ${/^\d+$/.test(t) ? 'value out of range' : 'invalid syntax'}`;
}

/** The status port annotation's rule (Istio names it excludeInboundPorts in the message). */
export const statusPortRule: ValueRule = (v) => {
  const e = portError(v);
  return e === undefined ? undefined : `excludeInboundPorts invalid: ${e}`;
};

/** A comma-separated list of ports; empty is none. */
export function portListRule(name: string): ValueRule {
  return (v) => {
    const s = v.trim();
    if (s === '') return undefined;
    for (const p of s.split(',')) {
      const e = portError(p);
      if (e !== undefined) return `${name} invalid: failed parsing port '${p}': ${e}`;
    }
    return undefined;
  };
}

/** `*` (every port) or a list of ports. */
export const includeInboundPortsRule: ValueRule = (v) => (v === '*' ? undefined : portListRule('includeInboundPorts')(v));

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

function cidrListError(v: string): string | undefined {
  if (v.length === 0) return undefined;
  for (const c of v.split(',')) {
    const e = prefixError(c);
    if (e !== undefined) return `failed parsing cidr '${c}': ${e}`;
  }
  return undefined;
}

/** Outbound ranges to redirect: `*` (all) or a list of CIDRs. */
export const includeIPRangesRule: ValueRule = (v) => {
  if (v === '*') return undefined;
  const e = cidrListError(v);
  return e === undefined ? undefined : `includeIPRanges invalid: ${e}`;
};

/** Outbound ranges not to redirect: a list of CIDRs. */
export const excludeIPRangesRule: ValueRule = (v) => {
  const e = cidrListError(v);
  return e === undefined ? undefined : `excludeIPRanges invalid: ${e}`;
};

/** resource.ParseQuantity's format check (validateResourceQuantity), with Go's error texts. */
export const quantityRule: ValueRule = (v) => {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(v)) return 'value contains control characters';
  const m = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/.exec(v);
  if (m === null) return "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  const suffix = m[2];
  if (suffix !== '' && !/^(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][-+]?\d+)$/.test(suffix)) return "unable to parse quantity's suffix";
  if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(m[1])) return "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  return undefined;
};
