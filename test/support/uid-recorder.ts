/**
 * @module test/support/uid-recorder
 * A loopback server that records the request uid of every AdmissionReview it is sent, in order
 * of arrival, and answers 200 `{}`: what the tests of the bench's load tools (wrk's script, the
 * open-loop child, vegeta) check the sequence of bodies against. Comes with a temporary
 * directory for the bodies; `close` removes both.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttp, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devCertificate } from '../../src/certs/index.js';

export interface UidRecorder {
  port: number;
  /** Each review's `request.uid`, in order of arrival. */
  uids: string[];
  dir: string;
  close(): void;
}

export async function uidRecorder(scheme: 'http' | 'https'): Promise<UidRecorder> {
  const uids: string[] = [];
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      uids.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { request: { uid: string } }).request.uid);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
  };
  let server;
  if (scheme === 'https') {
    const dev = await devCertificate({ hosts: ['localhost'] });
    server = createHttps({ cert: dev.certPem, key: dev.keyPem }, handle);
  } else {
    server = createHttp(handle);
  }
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const dir = mkdtempSync(join(tmpdir(), 'bench-recorder-'));
  return {
    port: (server.address() as AddressInfo).port,
    uids,
    dir,
    close: () => {
      server.close();
      server.closeAllConnections();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
