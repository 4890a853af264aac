import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const read = (p: string) => readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');

test('one way to put the CLI on PATH (the packed package installed globally), in the README and the KRM function example', () => {
  const files = ['README.md', 'examples/krm-function/README.md', 'examples/krm-function/kpt/inject.sh', 'examples/krm-function/kustomize/inject.sh'];
  for (const f of files) {
    const text = read(f);
    assert.ok(text.includes('npm run pack && npm install -g ./out/sidecar-injector-0.1.0.tgz'), f);
    assert.doesNotMatch(text, /npm link|npm install -g sidecar-injector|npm i -g/, f);
  }
  assert.equal(read(files[2]), read(files[3]), 'the two wrapper scripts are the same');
});
