/**
 * @module bench/anchor
 * The benchmark's anchor: the limit for Node on this machine. A bare `node:https` server with the
 * webhook's TLS settings (same certificate, TLS 1.2+, the same AEAD cipher list, ALPN http/1.1,
 * keep-alive) that reads the body, runs `JSON.parse` on the AdmissionReview and answers
 * `allowed: true` with the request's uid. Nothing else: no validation, no limits, no logging.
 * Plain JavaScript on purpose, so it starts as fast as Node can (no loader, no build step).
 *
 *   node bench/anchor.js --port 19443 --cert tls.crt --key tls.key [--address 127.0.0.1]
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

function flag(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i > 0 && process.argv[i + 1] !== undefined) return process.argv[i + 1];
  if (fallback === undefined) throw new Error(`--${name} is required`);
  return fallback;
}

// Same list as src/admission/server.ts TLS_CIPHERS (the bench checks both negotiate the same suite).
const CIPHERS = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

const server = createServer(
  {
    cert: readFileSync(flag('cert')),
    key: readFileSync(flag('key')),
    minVersion: 'TLSv1.2',
    ciphers: CIPHERS,
    honorCipherOrder: true,
    ALPNProtocols: ['http/1.1'],
    keepAliveTimeout: 100_000,
    noDelay: true,
  },
  (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let uid = '';
      let apiVersion = 'admission.k8s.io/v1';
      try {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        uid = review.request.uid;
        apiVersion = review.apiVersion;
      } catch {
        res.writeHead(400, { 'Content-Type': 'application/json' });
        res.end('{"kind":"Status","code":400}');
        return;
      }
      const body = JSON.stringify({ apiVersion, kind: 'AdmissionReview', response: { uid, allowed: true } });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    });
  },
);
server.keepAliveTimeout = 100_000;
const port = Number(flag('port'));
server.listen(port, flag('address', '127.0.0.1'), () => {
  process.stdout.write(`anchor listening on https://127.0.0.1:${server.address().port}/\n`);
});
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
});
