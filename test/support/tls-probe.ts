/**
 * @module test/support/tls-probe
 * Proves a certificate works the way a TLS client will use it: serve it from a real
 * `node:https` server on a loopback port and connect with only the given CA as trust root,
 * asking for a given name (SNI + hostname check). Returns the outcome instead of throwing.
 */
import { createServer, request } from 'node:https';
import { isIP, type AddressInfo } from 'node:net';

export interface ProbeResult {
  ok: boolean;
  /** node's error code when the handshake or hostname check failed, e.g. `ERR_TLS_CERT_ALTNAME_INVALID`. */
  code?: string;
  message?: string;
}

export async function tlsProbe(server: { certPem: string; keyPem: string }, client: { caPem: string; servername: string }): Promise<ProbeResult> {
  const srv = createServer({ cert: server.certPem, key: server.keyPem, minVersion: 'TLSv1.2' }, (_req, res) => res.end('ok'));
  const listenHost = isIP(client.servername) ? client.servername : '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, listenHost, resolve);
  });
  const { port } = srv.address() as AddressInfo;
  try {
    return await new Promise<ProbeResult>((resolve) => {
      const req = request(
        {
          // An IP is checked against IP SANs by dialling it (SNI may not carry an address, RFC 6066);
          // a DNS name is sent as SNI, and node checks the certificate against it.
          host: isIP(client.servername) ? client.servername : listenHost,
          port,
          path: '/',
          ca: client.caPem,
          ...(isIP(client.servername) ? {} : { servername: client.servername }),
          headers: { host: isIP(client.servername) === 6 ? `[${client.servername}]` : client.servername },
          agent: false,
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve(body === 'ok' ? { ok: true } : { ok: false, message: `unexpected body ${body}` }));
        },
      );
      req.on('error', (err: NodeJS.ErrnoException) => resolve({ ok: false, code: err.code, message: err.message }));
      req.end();
    });
  } finally {
    await new Promise<void>((resolve) => srv.close(() => resolve()));
  }
}
