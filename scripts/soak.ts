/**
 * @module scripts/soak
 * Soak the built webhook: N minutes at a fixed rate, a share of hostile requests mixed in
 * (malformed bodies, wrong methods and types, hostile pods, oversize bodies), valid requests
 * from the benchmark fixtures F1-F5 (each with its own uid). Prints a JSON summary and a table;
 * exits 1 when an invariant breaks (a failed valid request, a hostile request answered other
 * than documented, RSS growth beyond max(10 %, 20 MiB) after warm-up, event-loop lag p99 over
 * 50 ms, descriptors not back to where they started). The full series goes to
 * .bench-tmp/soak-<date>.json.
 *
 *   npm run soak -- [--minutes 10] [--rate 100] [--hostile-share 0.1] [--connections 8]
 *                   [--sample-seconds 5] [--no-build] [--server-flag=--log-level=warn ...]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { reviewBodies } from '../bench/fixtures.js';
import { writeCertificate } from '../bench/lib/servers.js';
import { uniqueUidRequests } from '../test/support/soak-requests.js';
import { buildProject, freePort, REPO_ROOT, startServeProcess } from '../test/support/server-process.js';
import { renderSoak, runSoak } from '../test/support/soak-driver.js';

const argv = process.argv.slice(2);
const num = (name: string, fallback: number): number => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};

async function main(): Promise<number> {
  const minutes = num('minutes', 10);
  const rate = num('rate', 100);
  const hostileShare = num('hostile-share', 0.1);
  const connections = num('connections', 8);
  if (!argv.includes('--no-build')) buildProject();
  const work = join(REPO_ROOT, '.bench-tmp', 'soak');
  mkdirSync(work, { recursive: true });
  const certs = await writeCertificate(join(work, 'tls'));
  const bodies = await reviewBodies();
  const monitoringPort = await freePort();
  const extra = argv.filter((a) => a.startsWith('--server-flag=')).map((a) => a.slice('--server-flag='.length));
  const server = await startServeProcess({
    readyBody: bodies.F1,
    flags: ['--tls-cert', certs.cert, '--tls-key', certs.key, '--monitoring-port', String(monitoringPort), '--log-level', 'warn', ...extra],
  });
  console.error(`soak: ${minutes} min at ${rate}/s, ${(hostileShare * 100).toFixed(0)} % hostile, against pid ${server.pid} on port ${server.port}`);
  const valid = [
    ...Array.from({ length: 6 }, () => ({ label: 'F1', body: bodies.F1, patch: true })),
    ...Array.from({ length: 2 }, () => ({ label: 'F2', body: bodies.F2, patch: true })),
    { label: 'F3', body: bodies.F3, patch: true },
    { label: 'F4', body: bodies.F4, patch: false },
    { label: 'F5', body: bodies.F5, patch: false },
  ].map(uniqueUidRequests);
  let report;
  try {
    report = await runSoak({
      port: server.port,
      pid: server.pid,
      monitoringPort,
      durationMs: minutes * 60_000,
      rate,
      hostileShare,
      connections,
      valid,
      sampleEveryMs: num('sample-seconds', minutes >= 10 ? 5 : 1) * 1000,
      log: (l) => console.error(l),
    });
  } finally {
    const code = await server.stop(20_000);
    if (code !== 0) console.error(`the server exited with ${code} on SIGTERM:\n${server.output().slice(-2000)}`);
  }
  const file = join(work, `soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(report, null, 2));
  const { samples: _series, ...summary } = report;
  console.log(JSON.stringify(summary, null, 2));
  console.log(`\n${renderSoak(report)}\n\nfull series: ${file}`);
  return report.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(2);
  },
);
