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
import { X509Certificate } from 'node:crypto';
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
  const untrusted = chainProblem(socket, peer.raw, auth.caPem);
  if (untrusted !== undefined) return { reason: 'untrusted', message: `the client certificate is not accepted: ${untrusted}` };
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

/**
 * The client CA each connection's handshake was checked against. A keep-alive connection
 * outlives a rotation of the CA file (the apiserver keeps its connections open), so a
 * handshake's verdict counts only while that CA is still the one in force; after a change the
 * certificate is checked again against the new bundle (found on a real kube-apiserver: with the
 * old verdict, dropping its CA from the bundle never took effect).
 */
const handshakeCa = new WeakMap<TLSSocket, string>();
const reverified = new WeakMap<TLSSocket, { caPem: string; problem: string | undefined }>();
let parsedCas: { pem: string; cas: X509Certificate[] } = { pem: '', cas: [] };

/** Called by the server for each new TLS connection, with the client CA its handshake used. */
export function noteHandshake(socket: TLSSocket, caPem: string): void {
  handshakeCa.set(socket, caPem);
}

function chainProblem(socket: TLSSocket, raw: Buffer, caPem: string): string | undefined {
  if (handshakeCa.get(socket) === caPem) return socket.authorized ? undefined : String(socket.authorizationError ?? 'it does not chain to the client CA');
  const cached = reverified.get(socket);
  if (cached !== undefined && cached.caPem === caPem) return cached.problem;
  const problem = issuedByOneOf(raw, caPem);
  reverified.set(socket, { caPem, problem });
  return problem;
}

/** A leaf issued directly by one of the CAs in `caPem`, valid now (what the rotation case needs). */
function issuedByOneOf(raw: Buffer, caPem: string): string | undefined {
  if (parsedCas.pem !== caPem) {
    const blocks = caPem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
    parsedCas = { pem: caPem, cas: blocks.map((b) => new X509Certificate(b)) };
  }
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(raw);
  } catch {
    return 'it cannot be read';
  }
  const now = Date.now();
  if (Date.parse(leaf.validFrom) > now || Date.parse(leaf.validTo) < now) return 'it is expired or not yet valid';
  const ok = parsedCas.cas.some((ca) => leaf.checkIssued(ca) && leaf.verify(ca.publicKey));
  return ok ? undefined : 'it does not chain to the client CA (serve --client-ca) in force now';
}
