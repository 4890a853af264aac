/**
 * @module scripts/fuzz
 * The unbounded webhook fuzzer (the bounded one runs in CI: test/reliability/fuzz-handler.test.ts).
 * Runs the same property in chunks of CHUNK cases, each with its own seed (seed, seed+1, ...), so
 * progress is printed as it goes and any failure replays from its chunk's seed alone. On the
 * first failure it prints the seed, path, counterexample and error, stores the counterexample in
 * test/reliability/fuzz-corpus/ (replayed by `npm test` from then on) and exits 1.
 *
 *   npm run fuzz -- [--runs 1000000] [--minutes M] [--seed S] [--path P] [--chunk 10000]
 *   FUZZ_RUNS=1000000 npm run fuzz
 */
import fc from 'fast-check';
import { fuzzProperty, fuzzTargets, newStats, saveCounterexample, type FuzzCase } from '../test/support/webhook-fuzz.js';

const argv = process.argv.slice(2);
function flag(name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
}

const runs = Number(flag('runs') ?? process.env.FUZZ_RUNS ?? 100_000);
const minutes = flag('minutes') !== undefined ? Number(flag('minutes')) : undefined;
const chunk = Number(flag('chunk') ?? 10_000);
const firstSeed = Number(flag('seed') ?? process.env.FUZZ_SEED ?? Date.now() % 2_147_483_647);
const path = flag('path') ?? process.env.FUZZ_PATH;

async function main(): Promise<number> {
  const targets = await fuzzTargets();
  const stats = newStats();
  const started = performance.now();
  const deadline = minutes !== undefined ? started + minutes * 60_000 : Number.POSITIVE_INFINITY;
  let done = 0;
  let seed = firstSeed;
  console.log(
    `fuzzing ${Number.isFinite(deadline) ? `for ${minutes} min` : `${runs.toLocaleString('en-US')} cases`} in chunks of ${chunk.toLocaleString('en-US')}, from seed ${firstSeed}; configs: ${targets.map((t) => t.name).join(', ')}`,
  );
  while (Number.isFinite(deadline) ? performance.now() < deadline : done < runs) {
    const n = Number.isFinite(deadline) ? chunk : Math.min(chunk, runs - done);
    const details = fc.check(fuzzProperty(targets, stats), { numRuns: n, seed, ...(path !== undefined && seed === firstSeed ? { path } : {}) });
    if (details.failed) {
      const c = details.counterexample?.[0] as FuzzCase | undefined;
      console.error(fc.defaultReportMessage(details));
      console.error(`\nreplay: npm run fuzz -- --seed ${details.seed} --path ${details.counterexamplePath} --runs ${n}`);
      if (c !== undefined) {
        const message = details.errorInstance instanceof Error ? details.errorInstance.message.split('\n')[0] : String(details.errorInstance);
        const file = saveCounterexample(targets, c, `fast-check seed ${details.seed} path ${details.counterexamplePath}: ${message}`);
        console.error(`counterexample stored in ${file}; \`npm test\` replays it from now on`);
      }
      return 1;
    }
    done += n;
    seed++;
    const secs = (performance.now() - started) / 1000;
    console.log(`${done.toLocaleString('en-US')} cases, ${(done / secs).toFixed(0)}/s, ${secs.toFixed(0)} s; answers ${JSON.stringify(stats)}`);
  }
  console.log(
    `done: ${done.toLocaleString('en-US')} cases, no invariant broken${Object.keys(stats.known).length > 0 ? ` (known open issues hit: ${JSON.stringify(stats.known)})` : ''}`,
  );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(2);
  },
);
