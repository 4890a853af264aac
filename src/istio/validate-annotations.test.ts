import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateIstioAnnotations } from './validate-annotations.js';

function problem(annotations: Record<string, string>): string | undefined {
  try {
    validateIstioAnnotations(annotations);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

describe("Istio's annotation validation", () => {
  it('accepts valid values', () => {
    assert.equal(
      problem({
        'sidecar.istio.io/interceptionMode': 'TPROXY',
        'status.sidecar.istio.io/port': '0',
        'readiness.status.sidecar.istio.io/periodSeconds': '10',
        'traffic.sidecar.istio.io/includeOutboundIPRanges': '*',
        'traffic.sidecar.istio.io/excludeOutboundIPRanges': '10.0.0.0/8,fd00::/8',
        'traffic.sidecar.istio.io/includeInboundPorts': '*',
        'traffic.sidecar.istio.io/excludeInboundPorts': ' 80, 443 ',
        'traffic.sidecar.istio.io/excludeOutboundPorts': '',
        'prometheus.istio.io/merge-metrics': 'False',
        'proxy.istio.io/config': 'holdApplicationUntilProxyStarts: true',
        unrelated: 'anything {{ .Values }}',
      }),
      undefined,
    );
  });

  it('names the annotation and the problem as Istio does', () => {
    assert.equal(
      problem({ 'traffic.sidecar.istio.io/includeOutboundIPRanges': '1.1.1.1/33' }),
      `invalid value '1.1.1.1/33' for annotation 'traffic.sidecar.istio.io/includeOutboundIPRanges': includeIPRanges invalid: failed parsing cidr '1.1.1.1/33': netip.ParsePrefix("1.1.1.1/33"): bad bits after slash: "33"`,
    );
    assert.match(problem({ 'traffic.sidecar.istio.io/excludeInboundPorts': '80,http' })!, /excludeInboundPorts invalid: failed parsing port 'http'/);
    assert.match(problem({ 'traffic.sidecar.istio.io/includeInboundPorts': '70000' })!, /includeInboundPorts invalid/);
    assert.match(problem({ 'sidecar.istio.io/interceptionMode': 'redirect' })!, /interceptionMode invalid, use REDIRECT,TPROXY,NONE: redirect/);
    assert.match(problem({ 'traffic.sidecar.istio.io/excludeOutboundIPRanges': '010.0.0.0/8' })!, /excludeIPRanges invalid/);
    assert.match(problem({ 'readiness.status.sidecar.istio.io/failureThreshold': '-1' })!, /failureThreshold/);
  });

  it('checks the proxy resource and interface annotations as current Istio does (found by the live peer)', () => {
    const ok = {
      'sidecar.istio.io/proxyCPU': '100m',
      'sidecar.istio.io/proxyMemory': '1.5Gi',
      'sidecar.istio.io/proxyCPULimit': '2',
      'sidecar.istio.io/proxyMemoryLimit': '1e9',
      'traffic.sidecar.istio.io/kubevirtInterfaces': 'net1, net-2',
    };
    assert.equal(problem(ok), undefined);
    assert.equal(
      problem({ 'sidecar.istio.io/proxyMemory': 'lots' }),
      "invalid value 'lots' for annotation 'sidecar.istio.io/proxyMemory': quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
    assert.match(problem({ 'sidecar.istio.io/proxyCPU': '1Ki2' })!, /unable to parse quantity's suffix/);
    assert.match(problem({ 'sidecar.istio.io/proxyCPU': '1\n' })!, /control characters/);
    assert.match(problem({ 'traffic.sidecar.istio.io/excludeInterfaces': 'eth0,,eth1' })!, /empty interface name/);
    assert.match(problem({ 'istio.io/reroute-virtual-interfaces': '1net' })!, /contains invalid characters/);
  });

  it('lists every invalid annotation at once', () => {
    const msg = problem({ 'sidecar.istio.io/interceptionMode': 'X', 'prometheus.istio.io/merge-metrics': 'maybe' })!;
    assert.match(msg, /^2 annotations are invalid:/);
    assert.match(msg, /merge-metrics/);
    assert.match(msg, /interceptionMode/);
  });
});
