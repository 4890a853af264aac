/**
 * @module scripts/slowloris
 * Slowloris check against the built webhook: normal F1 traffic at a fixed rate is measured
 * alone, then while an attacker process (test/support/slowloris-attacker.ts) holds SOCKETS idle
 * and slow connections (idle after the handshake, trickled headers, trickled body, no
 * handshake), replacing each one the server closes. Prints a JSON summary and a table; exits 1
 * when a normal request fails or its p99 under attack exceeds --max-ratio times the baseline.
 * The server caps connections at 1,000: at or above that, new connections are refused by
 * design (existing keep-alive clients keep working).
 *
 *   npm run slowloris -- [--sockets 500] [--rate 200] [--connections 4] [--seconds 20]
 *                        [--trickle-ms 1000] [--max-ratio 2] [--attacker-address 127.0.0.2]
 *                        [--attacker-nice 19] [--no-build]
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { reviewBodies } from '../bench/fixtures.js';
import { writeCertificate } from '../bench/lib/servers.js';
import type { AttackStats } from '../test/support/slowloris-attacker.js';
import { renderSlowloris, runSlowloris, type AttackHandle } from '../test/support/slowloris-driver.js';
import { uniqueUidRequests } from '../test/support/soak-requests.js';
import { buildProject, hasTaskset, pinned, REPO_ROOT, startServeProcess } from '../test/support/server-process.js';

const argv = process.argv.slice(2);
const str = (name: string, fallback: string): string => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? String(argv[i + 1]) : fallback;
};
const num = (name: string, fallback: number): number => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};

/**
 * The attacker in its own process, pinned away from the server; its last stats line is kept.
 * In a cluster the attacker is another pod, usually on another node; here it shares the second
 * core with the load client whose latency is measured, so it runs at the lowest CPU priority
 * (`--attacker-nice`, default 19): otherwise its own reconnect loop would be charged to the
 * webhook's p99. `--attacker-nice 0` measures the harsher, shared-core case.
 */
function attackerProcess(port: number, sockets: number, trickleMs: number, source: string, niceness: number): AttackHandle {
  const node = [
    process.execPath,
    '--import',
    'tsx',
    join(REPO_ROOT, 'test', 'support', 'slowloris-attacker.ts'),
    String(port),
    String(sockets),
    String(trickleMs),
    source,
  ];
  const [cmd, args] = niceness > 0 ? pinned('1', 'nice', ['-n', String(niceness), ...node]) : pinned('1', node[0], node.slice(1));
  const child = spawn(cmd, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let last: AttackStats | undefined;
  let buf = '';
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString('utf8');
    const lines = buf.split('\n');
    buf = lines.pop() ?? '';
    for (const l of lines) if (l.trim() !== '') last = JSON.parse(l) as AttackStats;
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    stats: () => last,
    async stop() {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    },
  };
}

async function main(): Promise<number> {
  if (!argv.includes('--no-build')) buildProject();
  // The load client (this process) stays off the server's core, as the apiserver would be.
  if (hasTaskset()) spawnSync('taskset', ['-cp', '1', String(process.pid)], { stdio: 'ignore' });
  const certs = await writeCertificate(join(REPO_ROOT, '.bench-tmp', 'slowloris', 'tls'));
  const bodies = await reviewBodies();
  const server = await startServeProcess({ readyBody: bodies.F1, cpus: '0', flags: ['--tls-cert', certs.cert, '--tls-key', certs.key, '--log-level', 'warn'] });
  const sockets = num('sockets', 500);
  const seconds = num('seconds', 20);
  console.error(
    `slowloris: ${sockets} attacking sockets; normal traffic ${num('rate', 200)}/s on ${num('connections', 4)} connections, ${seconds} s per phase; server pid ${server.pid}`,
  );
  let report;
  try {
    report = await runSlowloris({
      port: server.port,
      pid: server.pid,
      rate: num('rate', 200),
      connections: num('connections', 4),
      phaseMs: seconds * 1000,
      rampMs: Math.max(3000, sockets * 4),
      next: uniqueUidRequests({ label: 'F1', body: bodies.F1, patch: true }),
      // The attacker is another pod: its own source address (the webhook caps connections per source).
      startAttack: () => attackerProcess(server.port, sockets, num('trickle-ms', 1000), str('attacker-address', '127.0.0.2'), num('attacker-nice', 19)),
      maxP99Ratio: num('max-ratio', 2),
    });
  } finally {
    await server.stop(20_000);
  }
  console.log(JSON.stringify(report, null, 2));
  console.log(`\n${renderSlowloris(report)}`);
  return report.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(2);
  },
);
