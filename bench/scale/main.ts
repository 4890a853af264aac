/**
 * @module bench/scale/main
 * `npm run scale -- --pods N`: start the scale control plane (bench/scale/plane) when none runs
 * and fill it to N pods (bench/scale/generate).
 *
 *   npm run scale -- --pods 10000 [--parallel 48]   # last line: export KUBECONFIG=...
 *   npm run scale -- --clean                        # delete every namespace it made
 *   npm run scale -- --down                         # stop the plane, remove its state
 *
 * Loopback only (the plane listens on 127.0.0.1); at most 100,000 pods, 128 requests at once.
 */
import { down, exportLine } from '../../e2e/cluster/cluster.js';
import { clean, fill } from './generate.js';
import { planeState, planeUp, ScaleClient } from './plane.js';

async function main(argv: string[]): Promise<number> {
  const log = (l: string): void => void process.stderr.write(`${l}\n`);
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const known = new Set(['--pods', '--parallel', '--clean', '--down']);
  const bad = argv.find((a, i) => (a.startsWith('--') ? !known.has(a) : !['--pods', '--parallel'].includes(argv[i - 1] ?? '')));
  if (bad !== undefined || argv.length === 0) {
    log('usage: npm run scale -- --pods N [--parallel 48] | --clean | --down');
    return 2;
  }
  if (argv.includes('--down')) {
    if (planeState() !== undefined) await down({ log });
    return 0;
  }
  const parallel = Number(value('--parallel') ?? 48);
  if (!Number.isInteger(parallel) || parallel < 1 || parallel > 128) {
    log('scale: --parallel must be a whole number from 1 to 128');
    return 2;
  }
  const state = await planeUp(log);
  if (new URL(state.server).hostname !== '127.0.0.1') throw new Error(`scale: the plane is not on loopback (${state.server})`);
  const client = new ScaleClient(state, parallel);
  try {
    if (argv.includes('--clean')) await clean(client, log);
    else await fill(client, Number(value('--pods')), log);
  } finally {
    client.close();
  }
  process.stdout.write(`${exportLine(state)}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`scale: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
