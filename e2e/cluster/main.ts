/**
 * @module e2e/cluster/main
 * `npm run cluster -- up|down|env [--admission-config FILE]`. The last line of `up` and `env`
 * is `export KUBECONFIG=<path>`, so `eval "$(npm run -s cluster -- up | tail -1)"` works.
 */
import { resolve } from 'node:path';
import { down, exportLine, healthy, readState, up } from './cluster.js';

const USAGE = 'usage: npm run cluster -- up [--admission-config FILE] | down | env';

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case 'up': {
      let admissionConfigFile: string | undefined;
      for (let i = 0; i < rest.length; i++) {
        if (rest[i] === '--admission-config' && rest[i + 1]) admissionConfigFile = resolve(rest[++i]!);
        else { process.stderr.write(`${USAGE}\n`); return 2; }
      }
      const state = await up({ admissionConfigFile });
      process.stdout.write(`${exportLine(state)}\n`);
      return 0;
    }
    case 'down':
      await down();
      return 0;
    case 'env': {
      const state = readState();
      if (!state || !(await healthy(state))) {
        process.stderr.write('cluster: no running control plane; start one with: npm run cluster -- up\n');
        return 1;
      }
      process.stdout.write(`${exportLine(state)}\n`);
      return 0;
    }
    default:
      process.stderr.write(`${USAGE}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err: unknown) => {
  process.stderr.write(`cluster: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
