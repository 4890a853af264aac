/**
 * @module cli/command-truth.test
 * Every command tells the truth (issue 36): a command line that asks for something the command
 * would not do is refused, never answered with exit 0 and other output. Table-driven: each row
 * runs one command line as the binary runs it and asserts the exit status, what stdout and
 * stderr say, and which files were written.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findIstioPeer, istioPeerDir, peerInjectorConfigMap } from '../../test/support/istio-peer.js';
import { memoryIO } from '../../test/support/memory-io.js';
import { runCli } from './command-tree.js';

const dir = mkdtempSync(join(tmpdir(), 'si-truth-'));
const at = (p: string) => join(dir, p);
const pod = (name: string) => `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec:\n  containers: [{name: app, image: registry.example/${name}:1}]\n`;
const file = (p: string, text: string): string => {
  mkdirSync(join(at(p), '..'), { recursive: true });
  writeFileSync(at(p), text);
  return at(p);
};
const A = file('a.yaml', pod('alpha'));
const B = file('b.yaml', pod('beta'));
file('dir/1-gamma.yaml', pod('gamma'));
file('dir/2-delta.yml', pod('delta'));
file('dir/3-eps.json', JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'eps' }, spec: { containers: [{ name: 'app', image: 'e' }] } }));
file('dir/notes.txt', 'not a manifest\n');
mkdirSync(at('empty'));
// A copy of the built-in config with one line changed.
const defaultsWith = (name: string, from: RegExp, to: string): string => {
  mkdirSync(at(name));
  for (const f of ['config.yaml', 'values.yaml']) writeFileSync(at(`${name}/${f}`), readFileSync(`defaults/${f}`, 'utf8').replace(from, to));
  return at(name);
};
const POLICY_TYPO = defaultsWith('policy-typo', /^policy: enabled$/m, 'policy: enable');
const POLICY_EMPTY = defaultsWith('policy-empty', /^policy: enabled$/m, 'policy:');
// Values typos in a copy of defaults/ (item 7).
const HUBB = defaultsWith('hubb', /^ {2}hub:/m, '  hubb:');
const REDIRCT = defaultsWith('redirct', /interceptionMode: REDIRECT/, 'interceptionMode: REDIRCT');
const STATUS_X = defaultsWith('status-x', /statusPort: 15021/, 'statusPort: "15021x"');
const FAR_KEY = defaultsWith('far-key', /^ {2}clusterDomain:/m, '  owner: team-a\n  clusterDomain:');
// A config of one's own whose template prints a value the values misspell.
const NIL_IMAGE = file(
  'nil-image.yaml',
  'templates:\n  s: |\n    spec:\n      containers:\n      - name: side\n        image: {{ printf "%v/agent:1" .Values.registry }}\ndefaultTemplates: [s]\nvalues:\n  registy: r.example\n',
);
const MISPLACED = file(
  'misplaced.yaml',
  'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    sidecar.istio.io/inject: "false"\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: nginx}]\n',
);
// A pod whose last line, with no line break after it, is inside a block scalar.
const EOF_BLOCK = file(
  'eof-block.yaml',
  'apiVersion: v1\nkind: Pod\nmetadata: {name: eof}\nspec:\n  containers:\n  - name: app\n    image: nginx\n    args:\n    - |\n      hi',
);
// Today's Istio ConfigMap (item 5): the one the e2e's Istio build generates, when it is built.
const peer = findIstioPeer();
const istioConfigMap = peer === undefined ? undefined : peerInjectorConfigMap(peer);
const ISTIO_CM = istioConfigMap === undefined ? undefined : file('istio-sidecar-injector.yaml', istioConfigMap);

let server: Server;
let base = '';
before(async () => {
  server = createServer((req, res) => {
    if (req.url === '/app.yaml') return res.end(pod('remote'));
    if (req.url === '/huge') {
      res.writeHead(200);
      // Past the 64 MiB cap, in 1 MiB writes; the reader stops taking them.
      const chunk = Buffer.alloc(1024 * 1024, 'x');
      let sent = 0;
      const more = (): void => {
        while (sent < 70 && res.write(chunk)) sent++;
        if (sent < 70) res.once('drain', more);
        else res.end();
      };
      res.on('error', () => undefined);
      return more();
    }
    res.writeHead(404);
    res.end('no');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Row {
  what: string;
  argv: () => string[];
  exit: number;
  /** Names of the pods injected, in the order stdout (or the written file) holds them. */
  pods?: string[];
  stderr?: RegExp;
  stdout?: RegExp;
  /** What stdout must not hold. */
  stdoutNot?: RegExp;
  /** A file the command must write, and what it must start with; or that it must not exist. */
  writes?: { path: string; starts: RegExp };
  writesNothing?: string;
  /** A refusal that still prints its report (config check's findings): what stdout holds instead of nothing. */
  reportOnRefusal?: RegExp;
  /** Why the row cannot run here (a build it needs is missing). */
  skip?: string;
}

/** Pod names in a YAML or JSON stream, in order. */
function podNames(text: string): string[] {
  const names = [...text.matchAll(/^(?: {2}name: |\s*"name": "|metadata: \{name: )([a-z]+)["}]?,?$/gm)].map((m) => m[1]);
  return names.filter((n) => n !== 'app' && n !== 'istio-proxy' && n !== 'istio-init');
}

const ROWS: Row[] = [
  // 1. every -f is read, in order; a directory reads its manifests; URLs are fetched or refused.
  { what: 'inject -f a -f b: both files, in order', argv: () => ['inject', '-f', A, '-f', B, '-q'], exit: 0, pods: ['alpha', 'beta'] },
  { what: 'inject -f b -f a: the order given', argv: () => ['inject', '-f', B, '-f', A, '-q'], exit: 0, pods: ['beta', 'alpha'] },
  {
    what: 'inject -f DIR: its .yaml, .yml and .json files by name, nothing else',
    argv: () => ['inject', '-f', at('dir'), '-q'],
    exit: 0,
    pods: ['gamma', 'delta', 'eps'],
  },
  { what: 'inject -f DIR -f a', argv: () => ['inject', '-f', at('dir'), '-f', A, '-q'], exit: 0, pods: ['gamma', 'delta', 'eps', 'alpha'] },
  {
    what: 'inject -f EMPTY_DIR',
    argv: () => ['inject', '-f', at('empty')],
    exit: 2,
    stderr: /SI_FILE_READ.*empty is a directory with no \.yaml, \.yml or \.json file/,
  },
  { what: 'inject -f URL', argv: () => ['inject', '-f', `${base}/app.yaml`, '-q'], exit: 0, pods: ['remote'] },
  { what: 'inject -f URL that is not there', argv: () => ['inject', '-f', `${base}/nope.yaml`], exit: 2, stderr: /SI_FILE_READ.*nope\.yaml: HTTP 404/ },
  { what: 'inject -f URL too large', argv: () => ['inject', '-f', `${base}/huge`], exit: 2, stderr: /SI_FILE_READ.*the answer is larger than 64 MiB/ },
  {
    what: 'inject -f ftp://...',
    argv: () => ['inject', '-f', 'ftp://example.com/app.yaml'],
    exit: 2,
    stderr: /SI_FILE_READ.*only http:\/\/ and https:\/\/ URLs are fetched/,
  },
  { what: 'uninject -f a -f b', argv: () => ['uninject', '-f', A, '-f', B, '-q'], exit: 0, pods: ['alpha', 'beta'] },
  { what: 'explain -f a -f b: both explained', argv: () => ['explain', '-f', A, '-f', B], exit: 0, pods: [] },
  {
    what: 'template render -f a -f b: one pod, refused',
    argv: () => ['template', 'render', '-f', A, '-f', B],
    exit: 2,
    stderr: /SI_USAGE.*-f is given 2 times: template render -f renders one pod/,
  },
  { what: 'config check -f DIR', argv: () => ['config', 'check', '-f', at('dir')], exit: 0 },
  // 2. -v/--version belong to the top level.
  {
    what: 'inject -f a -o out.yaml -v: refused, nothing written',
    argv: () => ['inject', '-f', A, '-o', at('v-out.yaml'), '-v'],
    exit: 2,
    stderr: /SI_USAGE.*unknown option '-v': -v and --version print the version only before a command/,
    writesNothing: 'v-out.yaml',
  },
  { what: 'status --version', argv: () => ['status', '--version'], exit: 2, stderr: /unknown option '--version'/ },
  // 3. a file's extension chooses its format; a mismatch is refused.
  {
    what: 'inject -o out.json writes JSON',
    argv: () => ['inject', '-f', A, '-o', at('out.json'), '-q'],
    exit: 0,
    writes: { path: 'out.json', starts: /^\{\n {2}"apiVersion"/ },
  },
  {
    what: 'inject --output-file out.yml of a JSON input writes YAML',
    argv: () => ['inject', '-f', at('dir/3-eps.json'), '--output-file', at('out.yml'), '-q'],
    exit: 0,
    writes: { path: 'out.yml', starts: /^apiVersion: v1\n/ },
  },
  {
    what: 'inject -o yaml --output-file out.json: refused',
    argv: () => ['inject', '-f', A, '-o', 'yaml', '--output-file', at('clash.json')],
    exit: 2,
    stderr: /SI_USAGE.*-o yaml and the file .*clash\.json disagree: its extension says json/,
    writesNothing: 'clash.json',
  },
  {
    what: 'manifests --output-file install.json writes a JSON List',
    argv: () => ['manifests', '--output-file', at('install.json')],
    exit: 0,
    writes: { path: 'install.json', starts: /^\{\n {2}"apiVersion": "v1",\n {2}"kind": "List"/ },
  },
  {
    what: 'policy --output-file policy.json writes JSON',
    argv: () => ['policy', '-c', 'examples/policy-nginx-sidecar', '--output-file', at('policy.json')],
    exit: 0,
    writes: { path: 'policy.json', starts: /^\{\n/ },
  },
  {
    what: 'certs --secret-manifest secret.json writes JSON',
    argv: () => ['certs', '--service', 's', '-n', 'n', '--out', at('certs'), '--secret-manifest', at('secret.json')],
    exit: 0,
    writes: { path: 'secret.json', starts: /^\{\n {2}"apiVersion": "v1",\n {2}"kind": "Secret"/ },
  },
  {
    what: 'inject -o json of a pod ending inside a block scalar: the value kubectl stores ("hi", no line break added)',
    argv: () => ['inject', '-f', EOF_BLOCK, '-o', 'json'],
    exit: 0,
    stdout: /"args": \[\n\s*"hi"\n\s*\]/,
  },
  // 5. today's Istio ConfigMap checks clean: gateway templates are rendered for Gateways, the gateway injection template for a gateway pod.
  {
    what: "config check on Istio's istio-sidecar-injector ConfigMap: 0 failures, each gateway template rendered for its Gateways",
    argv: () => ['config', 'check', '-c', ISTIO_CM ?? ''],
    exit: 0,
    stdout:
      /^ok: 3 template\(s\) x \d+ pod\(s\) \+ gateway x 1 gateway pod\(s\) \+ waypoint x 2 Gateway\(s\) \+ kube-gateway x 2 Gateway\(s\) \+ agentgateway x 2 Gateway\(s\) \+ agentgateway-waypoint x 2 Gateway\(s\) = \d+ renders, 0 failure\(s\)/m,
    stdoutNot: /^FAIL|SidecarTemplateData/m,
    skip: ISTIO_CM === undefined ? `Istio peer not built (${istioPeerDir()}); run e2e/build/istio.sh` : undefined,
  },
  {
    what: "config check on Istio's ConfigMap with a gateway template that misspells a field: the failure names the template, the Gateway and the line",
    argv: () => [
      'config',
      'check',
      '-c',
      ISTIO_CM === undefined
        ? ''
        : file('istio-cm-typo.yaml', readFileSync(ISTIO_CM, 'utf8').replace('{{.ServiceAccount | quote}}', '{{.ServiceAcount | quote}}')),
    ],
    exit: 4,
    stderr:
      /SI_CONFIG_INVALID\]: config check: \d+ injection\(s\) give a pod the API server would refuse; first: .*istio-cm-typo\.yaml:\d+: template waypoint, Gateway plain \(waypoint, class istio-waypoint\): SI_TEMPLATE_EXEC: .*can't evaluate field ServiceAcount/,
    reportOnRefusal: /^FAIL .*template waypoint, Gateway plain[\s\S]*^FAILED: .* 2 failure\(s\)/m,
    skip: ISTIO_CM === undefined ? `Istio peer not built (${istioPeerDir()}); run e2e/build/istio.sh` : undefined,
  },
  // 6. an invalid policy is an error in every command; warnings are counted.
  {
    what: 'config check on policy: enable',
    argv: () => ['config', 'check', '-c', POLICY_TYPO],
    exit: 4,
    stderr: /SI_CONFIG_INVALID.*policy: must be "enabled" or "disabled", got "enable" \(did you mean "enabled"\?\)/,
  },
  { what: 'inject on policy: enable', argv: () => ['inject', '-f', A, '-c', POLICY_TYPO], exit: 4, stderr: /SI_CONFIG_INVALID.*got "enable"/ },
  { what: 'policy on policy: enable', argv: () => ['policy', '-c', POLICY_TYPO], exit: 4, stderr: /SI_CONFIG_INVALID.*got "enable"/ },
  {
    what: 'config check counts the load warnings it printed (policy: empty)',
    argv: () => ['config', 'check', '-c', POLICY_EMPTY],
    exit: 0,
    stderr: /warning: config: .*policy is empty, so no pod gets a sidecar/,
    stdout: /^ok: .* 1 warning\(s\)/m,
  },
  // 7. values the built-in template reads are checked alike in every command; no image holds <nil>.
  ...(['config check', 'inject', 'policy', 'serve'] as const).map(
    (cmd): Row => ({
      what: `${cmd} on hubb: (a misspelt hub): refused with the near key, file and line`,
      argv: () => [
        ...cmd.split(' '),
        ...(cmd === 'inject' ? ['-f', A, '-o', at('out-hubb.yaml')] : []),
        ...(cmd === 'serve' ? ['--port', '0'] : []),
        '-c',
        HUBB,
      ],
      exit: 4,
      stderr: /SI_CONFIG_INVALID\]: .*values\.yaml:7: global\.hubb: unknown key "hubb" \(did you mean "hub"\?\); global\.hub is not set/,
      writesNothing: 'out-hubb.yaml',
    }),
  ),
  {
    what: 'inject on interceptionMode: REDIRCT: refused, as the same value in the annotation is',
    argv: () => ['inject', '-f', A, '-c', REDIRCT],
    exit: 4,
    stderr: /values\.yaml:19: global\.proxy\.interceptionMode: must be REDIRECT, TPROXY or NONE .*got "REDIRCT" \(did you mean "REDIRECT"\?\)/,
  },
  {
    what: 'config check on statusPort: "15021x": refused, not a dropped probe',
    argv: () => ['config', 'check', '-c', STATUS_X],
    exit: 4,
    stderr: /values\.yaml:28: global\.proxy\.statusPort: must be a port number from 1 to 65535, or 0 to turn the readiness probes off .*got "15021x"/,
  },
  {
    what: 'inject with an unknown values key near nothing: a warning, and the sidecar',
    argv: () => ['inject', '-f', A, '-c', FAR_KEY],
    exit: 0,
    pods: ['alpha'],
    stderr: /warning: config: .*values\.yaml:11: global\.owner: unknown key "owner": the built-in sidecar template does not read it, so it has no effect/,
  },
  {
    what: 'inject with a template of ones own printing a missing value into the image: refused, nothing written',
    argv: () => ['inject', '-f', A, '-c', NIL_IMAGE, '-o', at('out-nil.yaml')],
    exit: 4,
    stderr:
      /SI_CONFIG_INVALID\]: the config's default sidecar \(s\) gives a pod the API server would refuse .*spec\.containers\[name=side\]\.image: the template printed "<nil>"/,
    writesNothing: 'out-nil.yaml',
  },
  // 8. inject says what explain says about the opt-in on the Deployment's own metadata.
  {
    what: 'inject of a Deployment with the opt-out on its own metadata: one warning line naming document and line',
    argv: () => ['inject', '-f', MISPLACED],
    exit: 0,
    stderr:
      /^warning: Deployment "default\/web" \(document 1\): line 1: annotation sidecar\.istio\.io\/inject="false" is on the Deployment's own metadata, which the injector never sees; move it to spec\.template\.metadata\.labels\n$/,
  },
  // 9. a flag of the other form of template render is refused, not ignored.
  {
    what: 'template render -f POD --data missing.yaml',
    argv: () => ['template', 'render', '-f', A, '--data', at('missing.yaml')],
    exit: 2,
    stderr: /SI_USAGE.*--data goes with a template file, not with -f POD/,
  },
  {
    what: 'template render -f POD --name x --allow-env',
    argv: () => ['template', 'render', '-f', A, '--name', 'x', '--allow-env'],
    exit: 2,
    stderr: /SI_USAGE.*--name, --allow-env go with a template file/,
  },
  {
    what: 'template render FILE --merged --template sidecar',
    argv: () => ['template', 'render', 'examples/template/sidecar.tpl', '--merged', '--template', 'sidecar'],
    exit: 2,
    stderr: /SI_USAGE.*--template, --merged go with -f POD/,
  },
  // 4. policy compiles the tutorial's own config; what it cannot compile is refused naming what to write instead.
  {
    what: 'policy -c examples/nginx-sidecar (the tutorial, opt-in values y/yes/true/on)',
    argv: () => ['policy', '-c', 'examples/nginx-sidecar/config.yaml'],
    exit: 0,
    stdout: /\.lowerAscii\(\) in \["y", "yes", "true", "on"\]/,
  },
  {
    what: 'policy on the built-in config: refused, naming the annotation and what to write instead',
    argv: () => ['policy'],
    exit: 4,
    stderr:
      /^Error \[SI_POLICY_UNSUPPORTED\]: template "sidecar", line 8: .*uses the pod's annotation "sidecar\.istio\.io\/nativeSidecar" to decide what to render .*Instead, take the setting from \.Values/,
  },
  {
    what: 'policy on a template ranging over the pod volumes: refused, saying what a policy sees',
    argv: () => ['policy', '-c', 'examples/log-shipper/config.yaml'],
    exit: 4,
    stderr: /SI_POLICY_UNSUPPORTED.*annotation "logging\.example\.com\/volume".*Instead/,
  },
  // 10. help texts say what happens (help-claims.test.ts checks the claims against the behaviour).
  {
    what: 'inject --help: comments are kept, not lost',
    argv: () => ['inject', '--help'],
    exit: 0,
    stdout: /every\s+other line keeps its text, quoting and comments/,
    stdoutNot: /comments inside it are lost\s+\(as with istioctl\)/,
  },
  { what: 'uninject --help: comments stay', argv: () => ['uninject', '--help'], exit: 0, stdout: /so every comment stays/ },
  // 12. the smaller ones.
  {
    what: 'inject --file: did you mean --filename (not "required option -f")',
    argv: () => ['inject', '--file', A],
    exit: 2,
    stderr: /^Error \[SI_USAGE\]: unknown option '--file' \(did you mean --filename\?\)\n/,
  },
  {
    what: "kube-inject: istioctl's name, pointed at inject",
    argv: () => ['kube-inject', '-f', A],
    exit: 2,
    stderr: /unknown command 'kube-inject': istioctl's kube-inject is sidecar-injector inject \(-f FILE, -c CONFIG\)/,
  },
  {
    what: 'inject --injectConfigFile: pointed at -c',
    argv: () => ['inject', '-f', A, '--injectConfigFile', 'inject-config.yaml'],
    exit: 2,
    stderr: /unknown option '--injectConfigFile': the injector config is -c\/--config FILE/,
  },
  {
    what: 'inject -o YAML: did you mean -o yaml',
    argv: () => ['inject', '-f', A, '-o', 'YAML'],
    exit: 2,
    stderr: /unknown output format "YAML": expected yaml or json; did you mean -o yaml\?\n/,
  },
  { what: 'status -o YAML: did you mean -o yaml', argv: () => ['status', '-o', 'YAML'], exit: 2, stderr: /did you mean -o yaml\?/ },
  {
    what: 'certs --validity-days 90d, as serve writes lifetimes',
    argv: () => ['certs', '--service', 's', '-n', 'n', '--out', at('certs-90d'), '--validity-days', '90d'],
    exit: 0,
    writes: { path: 'certs-90d/tls.crt', starts: /^-----BEGIN CERTIFICATE-----\n/ },
  },
  {
    what: 'certs --validity-days 90x',
    argv: () => ['certs', '--service', 's', '-n', 'n', '--out', at('certs-x'), '--validity-days', '90x'],
    exit: 2,
    stderr: /such as 90 or 90d/,
    writesNothing: 'certs-x',
  },
  {
    what: 'serve --help: no default printed as a JSON object',
    argv: () => ['serve', '--help'],
    exit: 0,
    stdout: /--limit <NAME=N>/,
    stdoutNot: /\(default: [{[]/,
  },
  {
    what: 'manifests --help: no default printed as a JSON object',
    argv: () => ['manifests', '--help'],
    exit: 0,
    stdout: /--monitoring-label/,
    stdoutNot: /\(default: [{[]/,
  },
  {
    what: 'template render -f DEPLOYMENT --merged: a whole Pod (apiVersion, kind, name, namespace)',
    argv: () => ['template', 'render', '-f', MISPLACED, '--merged'],
    exit: 0,
    stdout: /^apiVersion: v1\nkind: Pod\nmetadata:\n {2}name: web\n {2}namespace: default\n/,
  },
  { what: 'an unknown command with --help: refused, not the main help', argv: () => ['preveiw', '--help'], exit: 2, stderr: /unknown command 'preveiw'/ },
  {
    what: 'a misspelt command with --help: did you mean',
    argv: () => ['injct', '--help'],
    exit: 2,
    stderr: /unknown command 'injct'\n\(Did you mean inject\?\)/,
  },
  { what: 'a misspelt subcommand with -h', argv: () => ['config', 'chek', '-h'], exit: 2, stderr: /unknown command 'chek'\n\(Did you mean check\?\)/ },
];

describe('every command tells the truth', () => {
  for (const row of ROWS) {
    it(row.what, { skip: row.skip ?? false }, async () => {
      const io = memoryIO();
      const code = await runCli(row.argv(), io);
      assert.equal(code, row.exit, `exit status; stderr: ${io.err}`);
      if (row.stderr !== undefined) assert.match(io.err, row.stderr);
      if (row.stdout !== undefined) assert.match(io.out, row.stdout);
      if (row.stdoutNot !== undefined) assert.doesNotMatch(io.out, row.stdoutNot);
      if (row.exit !== 0 && row.reportOnRefusal !== undefined) assert.match(io.out, row.reportOnRefusal);
      else if (row.exit !== 0) assert.equal(io.out, '', 'a refused command prints nothing on stdout');
      if (row.pods !== undefined && row.pods.length > 0) assert.deepEqual(podNames(io.out), row.pods);
      if (row.writes !== undefined) assert.match(readFileSync(at(row.writes.path), 'utf8'), row.writes.starts);
      if (row.writesNothing !== undefined) assert.equal(existsSync(at(row.writesNothing)), false, `${row.writesNothing} must not be written`);
    });
  }
  it('explain -f a -f b explains the pods of both files', async () => {
    const io = memoryIO();
    assert.equal(await runCli(['explain', '-f', A, '-f', B], io), 0, io.err);
    assert.match(io.out, /alpha[\s\S]*beta/);
  });
});
