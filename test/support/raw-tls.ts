/**
 * @module test/support/raw-tls
 * Byte-level access to the webhook's TLS port for hostile-input tests: handshakes with chosen
 * versions and ALPN, partial requests, idle sockets, and what the server did about them.
 */
import { connect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { connect as tcpConnect } from 'node:net';

export function tlsConnect(port: number, options: ConnectionOptions = {}): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'], ...options }, () => resolve(socket));
    socket.once('error', reject);
  });
}

export interface HandshakeOutcome {
  ok: boolean;
  protocol?: string | null;
  alpn?: string | false | null;
  error?: string;
}

/** Try a handshake; report what was negotiated or why it failed. */
export async function handshake(port: number, options: ConnectionOptions): Promise<HandshakeOutcome> {
  try {
    const s = await tlsConnect(port, options);
    const out = { ok: true, protocol: s.getProtocol(), alpn: s.alpnProtocol };
    s.destroy();
    return out;
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

export interface Exchange {
  data: string;
  closed: boolean;
  error?: string;
}

/** Write `bytes` (optional) and collect what comes back until the socket closes or `waitMs` passes. */
export function exchange(socket: TLSSocket | import('node:net').Socket, bytes: string | Buffer | undefined, waitMs: number): Promise<Exchange> {
  return new Promise((resolve) => {
    let data = '';
    let error: string | undefined;
    const done = (closed: boolean): void => {
      clearTimeout(timer);
      resolve({ data, closed, error });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
    socket.on('error', (e: Error) => (error = e.message));
    socket.once('close', () => done(true));
    if (bytes !== undefined) socket.write(bytes);
  });
}

/** A plain TCP connection (plaintext HTTP to the TLS port). */
export function tcp(port: number): Promise<import('node:net').Socket> {
  return new Promise((resolve, reject) => {
    const s = tcpConnect({ host: '127.0.0.1', port }, () => resolve(s));
    s.once('error', reject);
  });
}
