/**
 * @module cli/help-claims.test
 * What `inject --help` and `uninject --help` promise, checked against what the commands do
 * (issue 36 item 10: the help said comments were lost "as with istioctl" while every one was
 * kept). Each test quotes the help sentence it checks, so an edit of the help that changes a
 * promise fails here until the behaviour is checked again.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memoryIO } from '../../test/support/memory-io.js';
import { runCli } from './command-tree.js';

const MANIFEST = `# The app, as a GitOps repository holds it.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # the workload
  labels: {app: web}
spec:
  replicas: 2 # two for the PDB
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels:
        app: web # selected by the Service
    spec:
      # the application container
      containers:
      - name: web
        image: "nginx:1.27" # pinned
        ports:
        - containerPort: 8080 # http
---
# The Service is not changed.
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  ports: [{port: 80, targetPort: 8080}] # keep
`;

async function help(command: string): Promise<string> {
  const io = memoryIO();
  assert.equal(await runCli([command, '--help'], io), 0);
  return io.out.replace(/\s+/g, ' ');
}

async function run(argv: string[], stdin: string): Promise<string> {
  const io = memoryIO(stdin);
  const code = await runCli(argv, io);
  assert.equal(code, 0, io.err);
  return io.out;
}

describe('inject and uninject do what their help says', () => {
  it('"every other line keeps its text, quoting and comments": the input lines, comments included, are all in the output, in order', async () => {
    assert.match(await help('inject'), /every other line keeps its text, quoting and comments/);
    const out = (await run(['inject', '-f', '-', '-q'], MANIFEST)).split('\n');
    let at = 0;
    for (const line of MANIFEST.split('\n')) {
      const found = out.indexOf(line, at);
      assert.ok(found >= 0, `input line ${JSON.stringify(line)} is not in the output (after line ${at})`);
      at = found + 1;
    }
    assert.ok(out.length > MANIFEST.split('\n').length + 20, 'the sidecar was added');
  });

  it('"Documents that are not changed are written back byte for byte": the Service document', async () => {
    assert.match(await help('inject'), /Documents that are not changed are written back byte for byte, comments included/);
    const out = await run(['inject', '-f', '-', '-q'], MANIFEST);
    assert.ok(out.endsWith(MANIFEST.slice(MANIFEST.indexOf('---\n'))), out);
  });

  it('"a document already injected by the same config is left byte for byte": injecting twice changes nothing', async () => {
    assert.match(await help('inject'), /a document already injected by the same config is left byte for byte/);
    const once = await run(['inject', '-f', '-', '-q'], MANIFEST);
    assert.equal(await run(['inject', '-f', '-', '-q'], once), once);
  });

  it('"uninjecting what inject wrote gives back the input byte for byte"', async () => {
    assert.match(await help('uninject'), /uninjecting what inject wrote gives back the input byte for byte/);
    const injected = await run(['inject', '-f', '-', '-q'], MANIFEST);
    assert.equal(await run(['uninject', '-f', '-', '-q'], injected), MANIFEST);
  });

  it('"json (one object, or a v1 List of several)"', async () => {
    assert.match(await help('inject'), /json \(one object, or a v1 List of several\)/);
    const list = JSON.parse(await run(['inject', '-f', '-', '-q', '-o', 'json'], MANIFEST)) as { kind: string; items: { kind: string }[] };
    assert.equal(list.kind, 'List');
    assert.deepEqual(
      list.items.map((i) => i.kind),
      ['Deployment', 'Service'],
    );
    const one = JSON.parse(await run(['inject', '-f', '-', '-q', '-o', 'json'], MANIFEST.slice(0, MANIFEST.indexOf('---\n')))) as { kind: string };
    assert.equal(one.kind, 'Deployment');
  });
});
