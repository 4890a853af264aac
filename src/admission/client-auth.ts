/**
 * @module admission/client-auth
 * Only the apiserver may call (`serve --client-ca FILE [--client-name NAME]`): the TLS port asks
 * every client for a certificate, and `/inject` and `/metrics` are served only when it chains to
 * the client CA and, with `--client-name`, names one of the allowed callers (subject CN or a DNS
 * SAN). The handshake itself accepts any client (requestCert without rejectUnauthorized), so a
 * refusal is an HTTP 403 that says why and is counted, and `/healthz` and `/readyz` stay open for
 * kubelet probes, which present no certificate. The apiserver presents its certificate when an
 * AdmissionConfiguration gives it a kubeconfig for the webhook (docs/install.md).
 */
import type { TLSSocket } from 'node:tls';
import type { RefusedCaller } from '../telemetry/metrics.js';

export interface ClientAuth {
  /** PEM: the CA (or CAs, during a rotation) that client certificates must chain to. */
  caPem: string;
  /** Accepted subject CNs or DNS SANs; empty: any certificate from the CA. */
  names: readonly string[];
}

/** Paths any client may call: the probes. */
const OPEN_PATHS = new Set(['/healthz', '/readyz']);

export function needsClientCertificate(path: string): boolean {
  return !OPEN_PATHS.has(path);
}

/** Why the caller on `socket` is refused, or undefined when it is accepted. */
export function refusal(socket: TLSSocket, auth: ClientAuth): { reason: RefusedCaller; message: string } | undefined {
  const peer = socket.getPeerCertificate();
  if (peer === null || Object.keys(peer).length === 0) {
    return { reason: 'no-certificate', message: 'this webhook serves only callers with a client certificate (serve --client-ca); none was presented' };
  }
  if (!socket.authorized) {
    return { reason: 'untrusted', message: `the client certificate is not accepted: ${String(socket.authorizationError ?? 'it does not chain to the client CA')}` };
  }
  if (auth.names.length === 0) return undefined;
  const names = new Set<string>();
  if (typeof peer.subject?.CN === 'string') names.add(peer.subject.CN);
  for (const part of (peer.subjectaltname ?? '').split(',')) {
    const m = /^\s*DNS:(.+)$/.exec(part);
    if (m !== null) names.add(m[1].trim());
  }
  if (auth.names.some((n) => names.has(n))) return undefined;
  return { reason: 'name', message: `the client certificate names ${JSON.stringify([...names])}, none of the accepted callers (serve --client-name)` };
}
