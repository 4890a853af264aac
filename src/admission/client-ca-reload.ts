/**
 * @module admission/client-ca-reload
 * The client CA bundle of `serve --client-ca FILE`, watched and hot-reloaded like the serving
 * certificate: a new bundle (a rotation: old and new CA side by side, then the new alone) is
 * validated and swapped in for new connections; an unreadable or invalid one keeps the last
 * good bundle, is logged, counted (`reloads_total{kind="client-ca"}`) and shown in `/readyz`.
 */
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CertError } from '../errors.js';
import { createReloader, sha256, type Reloader } from '../reload/file-reloader.js';
import type { Logger } from '../telemetry/log.js';
import type { WebhookMetrics } from '../telemetry/metrics.js';

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

export interface ClientCaBundle {
  pem: string;
  subjects: string[];
  notAfter: string;
}

/** Validate a CA bundle: at least one certificate, each a CA, none expired. */
export function parseClientCa(pem: string, now = new Date()): ClientCaBundle {
  const blocks = pem.match(PEM_CERT) ?? [];
  if (blocks.length === 0) throw new CertError('SI_CERT_INVALID', 'the client CA file holds no PEM certificate');
  const certs = blocks.map((b, i) => {
    try {
      return new X509Certificate(b);
    } catch (err) {
      throw new CertError('SI_CERT_INVALID', `certificate ${i + 1} of the client CA file does not parse: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
  for (const c of certs) {
    if (!c.ca) throw new CertError('SI_CERT_INVALID', `the client CA file holds ${c.subject.replace(/\n/g, ', ')}, which is not a CA certificate`);
    if (new Date(c.validTo).getTime() <= now.getTime())
      throw new CertError('SI_CERT_INVALID', `the client CA ${c.subject.replace(/\n/g, ', ')} expired on ${c.validTo}`);
  }
  const notAfter = certs.map((c) => new Date(c.validTo)).sort((a, b) => a.getTime() - b.getTime())[0];
  return { pem: blocks.join('\n') + '\n', subjects: certs.map((c) => c.subject.replace(/\n/g, ', ')), notAfter: notAfter.toISOString() };
}

export function clientCaReloader(
  file: string,
  apply: (bundle: ClientCaBundle) => void,
  common: { logger: Logger; metrics: WebhookMetrics; reload?: { debounceMs?: number; pollMs?: number } },
): Reloader {
  return createReloader({
    kind: 'client-ca',
    dirs: [dirname(file)],
    snapshot: async () => {
      const bytes = await readFile(file);
      return { hash: sha256(bytes), raw: bytes.toString('utf8') };
    },
    load: async (pem: string) => parseClientCa(pem),
    apply,
    describe: (b) => ({ subjects: b.subjects, notAfter: b.notAfter }),
    ...common.reload,
    logger: common.logger,
    metrics: common.metrics,
  });
}
