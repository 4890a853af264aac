/**
 * @module bench/cache-cold
 * One cache-miss injection in a tight loop, and the same with other memory walked between
 * injections (evicting the CPU caches, as a server's TLS, HTTP and socket work does between
 * requests). The second is closer to what `serve` pays per miss: the gap says how much of a
 * miss is the size of what it touches (code and data) rather than any one hot loop.
 *
 *   npx tsx bench/cache-cold.ts [--mb 0,8,32] [--fixture F1] [--calls 3000]
 */
import { defaultConfig } from '../src/profiles/index.js';
import { injectPod } from '../src/inject/index.js';
import { StatusKeys } from '../src/inject/status-mac.js';
import { reviewBodies, type FixtureName } from './fixtures.js';
import { cpuUs } from './lib/stats.js';
import { recordLoad } from './lib/quiet.js';

recordLoad();

const argv = process.argv.slice(2);
const flag = (name: string, fallback: string): string => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const sizes = flag('--mb', '0,8,32').split(',').map(Number);
const fixture = flag('--fixture', 'F1') as FixtureName;
const calls = Number(flag('--calls', '3000'));

async function main(): Promise<void> {
  const bodies = await reviewBodies();
  const config = defaultConfig();
  const keys = new StatusKeys();
  keys.rotate(Buffer.alloc(32, 7));
  const pod = (JSON.parse(bodies[fixture].toString()) as { request: { object: unknown } }).request.object;
  const ctx = { namespace: 'shop', mode: 'webhook' as const, statusKeys: keys };
  process.stdout.write(`Node ${process.version}; ${fixture}; CPU µs per injectPod (only the call is timed), ${calls} calls after ${calls} warm-up\n`);
  for (const mb of sizes) {
    const other = new Float64Array(mb * 131_072);
    let sum = 0;
    let spent = 0;
    const step = (): void => {
      const t = cpuUs();
      injectPod(pod, ctx, config);
      spent += cpuUs() - t;
      for (let i = 0; i < other.length; i += 8) sum += other[i]; // one read per 64-byte line
    };
    for (let i = 0; i < calls; i++) step();
    spent = 0;
    for (let i = 0; i < calls; i++) step();
    process.stdout.write(`${String(mb).padStart(4)} MB walked between calls: ${(spent / calls).toFixed(1)} µs${sum === 1 ? ' ' : ''}\n`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`cache-cold failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
