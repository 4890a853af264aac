/**
 * @module e2e/cluster/main
 * `npm run cluster -- up [--no-node] [--admission-config FILE] | down | env | load-image ARCHIVE...`.
 * The last line of `up` and `env` is `export KUBECONFIG=<path> PATH=<bin dir>:$PATH`, so
 * `eval "$(npm run -s cluster -- up | tail -1)"` gives the cluster and its own kubectl and helm.
 */
import { resolve } from 'node:path';
import { down, exportLine, healthy, readState, up } from './cluster.js';
import { loadImage } from './node.js';

const USAGE = 'usage: npm run cluster -- up [--no-node] [--admission-config FILE] | down | env | load-image ARCHIVE...';

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case 'up': {
      let admissionConfigFile: string | undefined;
      let node = true;
      for (let i = 0; i < rest.length; i++) {
        if (rest[i] === '--admission-config' && rest[i + 1]) admissionConfigFile = resolve(rest[++i]!);
        else if (rest[i] === '--no-node') node = false;
        else {
          process.stderr.write(`${USAGE}\n`);
          return 2;
        }
      }
      const t0 = Date.now();
      const state = await up({ admissionConfigFile, node });
      process.stderr.write(`cluster: ${node ? 'cluster with a node' : 'control plane'} ready in ${((Date.now() - t0) / 1000).toFixed(1)}s\n`);
      process.stdout.write(`${exportLine(state)}\n`);
      return 0;
    }
    case 'down':
      await down();
      return 0;
    case 'env': {
      const state = readState();
      if (!state || !(await healthy(state))) {
        process.stderr.write('cluster: no running cluster; start one with: npm run cluster -- up\n');
        return 1;
      }
      process.stdout.write(`${exportLine(state)}\n`);
      return 0;
    }
    case 'load-image': {
      const state = readState();
      if (!state?.node || !(await healthy(state))) {
        process.stderr.write('cluster: no running cluster with a node; start one with: npm run cluster -- up\n');
        return 1;
      }
      if (rest.length === 0) {
        process.stderr.write(`${USAGE}\n`);
        return 2;
      }
      for (const archive of rest) {
        for (const ref of loadImage(state.node, resolve(archive))) process.stdout.write(`${ref}\n`);
      }
      return 0;
    }
    default:
      process.stderr.write(`${USAGE}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`cluster: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
