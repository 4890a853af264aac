/**
 * @module scripts/reload-storm
 * Config and certificate rotations, half of them bad, against the built webhook under load
 * (test/support/reload-storm-driver.ts has the invariants). The server runs as in a cluster:
 * `--config DIR` (a mounted ConfigMap: `config` and `values`) and `--tls-cert/--tls-key` in a
 * mounted Secret directory, both updated through kubelet-style `..data` swaps; it finds the
 * changes by itself (directory watch, 10 s poll as backup). Prints a JSON summary and a table;
 * exits 1 when an invariant breaks.
 *
 *   npm run reload-storm -- [--config-reloads 200] [--cert-rotations 50] [--bad-share 0.5]
 *                           [--rate 50] [--connections 4] [--no-build]
 */
import { mkdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { reviewBodies } from '../bench/fixtures.js';
import { buildProject, freePort, REPO_ROOT, startServeProcess } from '../test/support/server-process.js';
import { renderStorm, runStorm, seedStorm, stormMaterial, type ReloadCounters } from '../test/support/reload-storm-driver.js';

const argv = process.argv.slice(2);
const num = (name: string, fallback: number): number => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};

function readyz(port: number): Promise<{ config: ReloadCounters; certificate: ReloadCounters }> {
  return new Promise((resolve, reject) => {
    const r = request({ host: '127.0.0.1', port, path: '/readyz', timeout: 5000 }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString('utf8')));
      res.on('end', () => {
        try {
          resolve(JSON.parse(text) as { config: ReloadCounters; certificate: ReloadCounters });
        } catch (err) {
          reject(err as Error);
        }
      });
    });
    r.on('error', reject);
    r.on('timeout', () => r.destroy(new Error('readyz timeout')));
    r.end();
  });
}

async function main(): Promise<number> {
  if (!argv.includes('--no-build')) buildProject();
  const work = join(REPO_ROOT, '.bench-tmp', 'reload-storm');
  rmSync(work, { recursive: true, force: true });
  const configDir = join(work, 'config');
  const certDir = join(work, 'tls');
  mkdirSync(work, { recursive: true });
  const m = await stormMaterial();
  const first = await seedStorm(m, configDir, certDir);
  const bodies = await reviewBodies();
  const monitoringPort = await freePort();
  const server = await startServeProcess({
    readyBody: bodies.F1,
    flags: [
      '--config',
      configDir,
      '--tls-cert',
      join(certDir, 'tls.crt'),
      '--tls-key',
      join(certDir, 'tls.key'),
      '--monitoring-port',
      String(monitoringPort),
      '--log-level',
      'warn',
    ],
  });
  const configReloads = num('config-reloads', 200);
  const certRotations = num('cert-rotations', 50);
  console.error(
    `reload storm: ${configReloads} config reloads and ${certRotations} certificate rotations (${num('bad-share', 0.5) * 100} % bad) at ${num('rate', 50)} requests/s, server pid ${server.pid}`,
  );
  let report;
  try {
    report = await runStorm({ port: server.port, configDir, certDir, status: () => readyz(monitoringPort) }, m, first, {
      configReloads,
      certRotations,
      badShare: num('bad-share', 0.5),
      rate: num('rate', 50),
      connections: num('connections', 4),
      review: bodies.F1,
      uid: '00000000-0000-4000-8000-000000000001',
      log: (l) => console.error(l),
    });
  } finally {
    const code = await server.stop(20_000);
    if (code !== 0) console.error(`the server exited with ${code}:\n${server.output().slice(-2000)}`);
  }
  const { events, ...summary } = report;
  console.log(JSON.stringify({ ...summary, events: events.length }, null, 2));
  console.log(`\n${renderStorm(report)}`);
  return report.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(2);
  },
);
