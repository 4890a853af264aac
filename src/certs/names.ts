/**
 * @module certs/names
 * Checks the names that go into a certificate's SAN list. A malformed SAN is not caught by the
 * library and only fails much later, inside the apiserver's TLS handshake, so it is refused here
 * with a message that names the bad entry.
 */
import { isIP } from 'node:net';
import { CertError } from '../errors.js';

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** Lower-cased DNS name, or a CertError saying why it is not one. `*.` prefix allowed. */
export function normalizeDnsName(name: string): string {
  const lower = name.trim().toLowerCase().replace(/\.$/, '');
  const body = lower.startsWith('*.') ? lower.slice(2) : lower;
  if (lower.length === 0 || lower.length > 253 || body.split('.').some((label) => !LABEL.test(label))) {
    throw new CertError(
      'SI_CERT_GENERATE',
      `"${name}" is not a valid DNS name for a certificate (letters, digits and "-" in dot-separated labels of at most 63 characters; "*." only as the first label)`,
    );
  }
  return lower;
}

/** An IPv4 or IPv6 address in the form node prints it, or a CertError. */
export function normalizeIp(address: string): string {
  const trimmed = address.trim().replace(/^\[(.*)\]$/, '$1');
  if (isIP(trimmed) === 0) throw new CertError('SI_CERT_GENERATE', `"${address}" is not a valid IP address`);
  return trimmed.toLowerCase();
}

/** Split mixed host names and addresses (as a user types them) into deduplicated SAN lists. */
export function splitHosts(hosts: readonly string[]): { dnsNames: string[]; ipAddresses: string[] } {
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  for (const host of hosts) {
    const bare = host.trim().replace(/^\[(.*)\]$/, '$1');
    if (isIP(bare) !== 0) pushUnique(ipAddresses, normalizeIp(bare));
    else pushUnique(dnsNames, normalizeDnsName(host));
  }
  return { dnsNames, ipAddresses };
}

function pushUnique(list: string[], value: string): void {
  if (!list.includes(value)) list.push(value);
}

/**
 * The names the apiserver may use to reach a Service: it dials `NAME.NS.svc` for
 * `clientConfig.service`; the shorter and fully-qualified forms cover in-cluster clients
 * and resolvers that expand search domains.
 */
export function serviceDnsNames(service: string, namespace: string, clusterDomain = 'cluster.local'): string[] {
  const domain = normalizeDnsName(clusterDomain);
  return [service, `${service}.${namespace}`, `${service}.${namespace}.svc`, `${service}.${namespace}.svc.${domain}`].map(normalizeDnsName);
}
