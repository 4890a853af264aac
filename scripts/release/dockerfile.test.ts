/**
 * deploy/Dockerfile cannot be built here (no Docker daemon), so it is kept in step with the
 * image `npm run image` builds by reading it: the final stage is an empty image holding only
 * the root filesystem that scripts/release/rootfs.ts assembles in the build stage (the same code
 * as `npm run image`, hence the same files), with the same user, entrypoint, cmd, ports,
 * working directory and labels as scripts/release/image-spec.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IMAGE_CMD, IMAGE_ENTRYPOINT, IMAGE_PORTS, IMAGE_USER, IMAGE_WORKDIR, imageLabels } from './image-spec.js';
import { ROOT } from './test-support.js';

interface Instruction {
  op: string;
  args: string;
}

/** Instructions of a Dockerfile: comments dropped, backslash continuations joined. */
function parseDockerfile(text: string): Instruction[] {
  const logical = text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return logical
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((l) => {
      const m = /^(\S+)\s+(.*)$/.exec(l);
      assert.ok(m, `not an instruction: ${l}`);
      return { op: m[1].toUpperCase(), args: m[2].trim() };
    });
}

const instructions = parseDockerfile(readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8'));
const lastFrom = instructions.map((i) => i.op).lastIndexOf('FROM');
const build = instructions.slice(0, lastFrom);
const final = instructions.slice(lastFrom);
const one = (op: string): string => {
  const found = final.filter((i) => i.op === op);
  assert.equal(found.length, 1, `the final stage has ${found.length} ${op} instructions`);
  return found[0].args;
};

/** LABEL k="v" k2="v2" ... -> { k: v, ... } */
function labels(args: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of args.matchAll(/([\w.-]+)="((?:[^"\\]|\\.)*)"/g)) out[m[1]] = m[2];
  return out;
}

test('the parser joins continuations and drops comments', () => {
  assert.deepEqual(parseDockerfile('# c\nFROM a AS b\nRUN x \\\n  y\n'), [
    { op: 'FROM', args: 'a AS b' },
    { op: 'RUN', args: 'x    y' },
  ]);
});

test('the Dockerfile final stage is an empty image holding only the assembled root filesystem', () => {
  assert.equal(final[0].args, 'scratch');
  const copies = final.filter((i) => i.op === 'COPY' || i.op === 'ADD');
  assert.deepEqual(copies, [{ op: 'COPY', args: '--from=build /rootfs/ /' }]);
  assert.deepEqual(
    final.filter((i) => i.op === 'RUN'),
    [],
    'a RUN in the final stage would need a shell the image does not have',
  );
  assert.match(build[0].args, /^node:20\S* AS build$/);
  const runs = build.filter((i) => i.op === 'RUN').map((i) => i.args);
  assert.ok(
    runs.some((r) => r.includes('npm run build:exe') && r.includes('scripts/release/rootfs-cli.ts /rootfs')),
    'the build stage does not assemble /rootfs with release/rootfs-cli.ts',
  );
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.match(pkg.scripts['build:exe'], /scripts\/build-exe\.mjs/);
});

test("the Dockerfile has the image's user, entrypoint, cmd, ports and working directory", () => {
  assert.equal(one('USER'), IMAGE_USER);
  assert.deepEqual(JSON.parse(one('ENTRYPOINT')), [...IMAGE_ENTRYPOINT]);
  assert.deepEqual(JSON.parse(one('CMD')), [...IMAGE_CMD]);
  assert.deepEqual(one('EXPOSE').split(/\s+/).sort(), IMAGE_PORTS.map((p) => `${p}/tcp`).sort());
  assert.equal(one('WORKDIR'), IMAGE_WORKDIR);
});

test("the Dockerfile has the image's labels (version and revision from build arguments)", () => {
  const expected = imageLabels('REVISION', 'CREATED');
  // Docker records the creation time itself (config.created).
  delete expected['org.opencontainers.image.created'];
  const actual = labels(one('LABEL'));
  assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort());
  for (const [key, value] of Object.entries(actual)) {
    if (key.endsWith('.version')) assert.equal(value, '${VERSION}');
    else if (key.endsWith('.revision')) assert.equal(value, '${REVISION}');
    else assert.equal(value, expected[key], key);
  }
  const version = final.find((i) => i.op === 'ARG' && i.args.startsWith('VERSION='));
  assert.equal(version?.args, `VERSION=${expected['org.opencontainers.image.version']}`, 'ARG VERSION default is not the package version');
});
