/**
 * The built-in template's values are checked at load (issue 36, item 7): each row edits one line
 * of a copy of defaults/ and asserts the code, the key path, the file and line named, and the
 * message (what the key takes, "did you mean" for a near key or value). Valid edits load.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError } from '../errors.js';
import { loadConfig, parseConfig } from './load.js';

const dir = mkdtempSync(join(tmpdir(), 'si-builtin-values-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const CONFIG = readFileSync(new URL('../../defaults/config.yaml', import.meta.url), 'utf8');
const VALUES = readFileSync(new URL('../../defaults/values.yaml', import.meta.url), 'utf8');

let n = 0;
/** A copy of defaults/ with `from` replaced by `to` in values.yaml; returns the directory. */
function copyWith(from: RegExp, to: string, config = CONFIG): { path: string; values: string } {
  const path = join(dir, `c${n++}`);
  mkdirSync(path);
  const values = VALUES.replace(from, to);
  assert.notEqual(values, VALUES, `the row's pattern ${from} matches defaults/values.yaml`);
  writeFileSync(join(path, 'config.yaml'), config);
  writeFileSync(join(path, 'values.yaml'), values);
  return { path, values };
}

/** 1-based line of the first line matching `re`. */
const lineOf = (text: string, re: RegExp) => text.split('\n').findIndex((l) => re.test(l)) + 1;

interface Issue {
  file: string;
  path: string;
  line?: number;
  message: string;
}

async function issues(path: string): Promise<Issue[]> {
  try {
    await loadConfig(path);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    assert.equal(err.code, 'SI_CONFIG_INVALID');
    return (err.details as { issues: Issue[] }).issues;
  }
  assert.fail('the config loaded');
}

interface Row {
  what: string;
  from: RegExp;
  to: string;
  path: string;
  /** The line named: of this pattern in the edited values. */
  line: RegExp;
  message: RegExp;
}

const ROWS: Row[] = [
  {
    what: 'issue case 1: hubb: is an unknown key near hub, which is then unset',
    from: /^ {2}hub:/m,
    to: '  hubb:',
    path: 'global.hubb',
    line: /^ {2}hubb:/,
    message:
      /^unknown key "hubb" \(did you mean "hub"\?\); global\.hub is not set \(images are HUB\/IMAGE:TAG; without it they would be <nil>\/IMAGE:TAG\); known keys here: hub, tag,/,
  },
  {
    what: 'issue case 2: interceptionMode REDIRCT, judged as the annotation is',
    from: /interceptionMode: REDIRECT/,
    to: 'interceptionMode: REDIRCT',
    path: 'global.proxy.interceptionMode',
    line: /interceptionMode: REDIRCT/,
    message: /^must be REDIRECT, TPROXY or NONE \(as the annotation sidecar\.istio\.io\/interceptionMode takes\), got "REDIRCT" \(did you mean "REDIRECT"\?\)$/,
  },
  {
    what: 'issue case 3: statusPort "15021x" would drop the readiness probe',
    from: /statusPort: 15021/,
    to: 'statusPort: "15021x"',
    path: 'global.proxy.statusPort',
    line: /statusPort: "15021x"/,
    message:
      /^must be a port number from 1 to 65535, or 0 to turn the readiness probes off \(as the annotation status\.sidecar\.istio\.io\/port takes\), got "15021x"$/,
  },
  {
    what: 'a bool as the string "yes"',
    from: /nativeSidecar: false/,
    to: 'nativeSidecar: "yes"',
    path: 'global.proxy.nativeSidecar',
    line: /nativeSidecar: "yes"/,
    message: /^must be true or false \(as the annotation sidecar\.istio\.io\/nativeSidecar takes\), got a string \("yes"\)$/,
  },
  {
    what: 'a bool the product reads as a boolean only, given as the string "true": unquote it',
    from: /nativeSidecar: false/,
    to: 'nativeSidecar: false\n    holdApplicationUntilProxyStarts: "true"',
    path: 'global.proxy.holdApplicationUntilProxyStarts',
    line: /holdApplicationUntilProxyStarts: "true"/,
    message: /^must be true or false, got a string \("true"\); write true without quotes$/,
  },
  {
    what: 'a negative port',
    from: /metricsPort: 15090/,
    to: 'metricsPort: -1',
    path: 'global.proxy.metricsPort',
    line: /metricsPort: -1/,
    message: /^must be a port number from 1 to 65535, got a number \(-1\)$/,
  },
  {
    what: 'port 70000',
    from: /outboundCapturePort: 15001/,
    to: 'outboundCapturePort: 70000',
    path: 'global.proxy.outboundCapturePort',
    line: /outboundCapturePort: 70000/,
    message: /^must be a port number from 1 to 65535, got a number \(70000\)$/,
  },
  {
    what: 'port 0 where 0 does not disable anything',
    from: /inboundCapturePort: 15006/,
    to: 'inboundCapturePort: 0',
    path: 'global.proxy.inboundCapturePort',
    line: /inboundCapturePort: 0/,
    message: /from 1 to 65535, got a number \(0\)/,
  },
  {
    what: 'missing hub: named at the global map',
    from: /^ {2}hub: docker\.io\/istio\n/m,
    to: '',
    path: 'global.hub',
    line: /^ {2}tag:/,
    message:
      /^is missing: the built-in sidecar template reads it \(images are HUB\/IMAGE:TAG; without it they would be <nil>\/IMAGE:TAG\); set it under global$/,
  },
  {
    what: 'an empty tag',
    from: /tag: "1\.24\.2"/,
    to: 'tag: ""',
    path: 'global.tag',
    line: /tag: ""/,
    message: /^must be an image tag such as "1\.24\.2", got an empty string$/,
  },
  {
    what: 'an unquoted number tag (1.20 is the number 1.2)',
    from: /tag: "1\.24\.2"/,
    to: 'tag: 1.20',
    path: 'global.tag',
    line: /tag: 1\.20/,
    message: /got a number \(1\.2\); quote it \("1\.2"\)/,
  },
  {
    what: 'a log level typo',
    from: /logLevel: warning/,
    to: 'logLevel: warnig',
    path: 'global.proxy.logLevel',
    line: /logLevel: warnig/,
    message: /got "warnig" \(did you mean "warning"\?\)/,
  },
  {
    what: 'a CIDR the annotation refuses too, with its reason',
    from: /includeIPRanges: "\*"/,
    to: 'includeIPRanges: "10.0.0.0/33"',
    path: 'global.proxy.includeIPRanges',
    line: /includeIPRanges:/,
    message: /includeOutboundIPRanges takes\), got "10\.0\.0\.0\/33": includeIPRanges invalid: failed parsing cidr '10\.0\.0\.0\/33'/,
  },
  {
    what: 'a quantity that is not one',
    from: /cpu: 100m/,
    to: 'cpu: lots',
    path: 'global.proxy.resources.requests.cpu',
    line: /cpu: lots/,
    message: /^must be a quantity such as 100m or 128Mi, or "" to leave it unset \(as the annotation sidecar\.istio\.io\/proxyCPU takes\), got "lots"/,
  },
  {
    what: 'a token that expires too soon for Kubernetes',
    from: /tokenExpirationSeconds: 43200/,
    to: 'tokenExpirationSeconds: 60',
    path: 'global.proxy.tokenExpirationSeconds',
    line: /tokenExpirationSeconds: 60/,
    message: /^must be a number of seconds, a whole number from 600 to 4294967296 \(Kubernetes' bounds for a projected token\), got a number \(60\)$/,
  },
  {
    what: 'uid 0, which runAsNonRoot refuses',
    from: /uid: 1337/,
    to: 'uid: 0',
    path: 'global.proxy.uid',
    line: /uid: 0/,
    message:
      /^must be a user id, a whole number from 1 to 2147483647 \(not 0: the proxy runs with runAsNonRoot: true, which the kubelet refuses for root\), got a number \(0\)$/,
  },
  {
    what: 'a map where a map belongs, given a scalar',
    from: /^ {2}proxy_init:\n {4}image: proxyv2\n/m,
    to: '  proxy_init: proxyv2\n  unused_init:\n    image: proxyv2\n',
    path: 'global.proxy_init',
    line: /proxy_init: proxyv2/,
    message: /^must be a map, got a string \("proxyv2"\)$/,
  },
];

describe('the built-in template values are checked at load', () => {
  for (const row of ROWS) {
    it(row.what, async () => {
      const { path, values } = copyWith(row.from, row.to);
      const found = await issues(path);
      const issue = found.find((i) => i.path === row.path);
      assert.ok(issue, `an issue at ${row.path}: ${JSON.stringify(found)}`);
      assert.equal(issue.file, join(path, 'values.yaml'));
      assert.equal(issue.line, lineOf(values, row.line), JSON.stringify(issue));
      assert.match(issue.message, row.message);
    });
  }

  it('the three issue cases read as one error naming file, line and key', async () => {
    const { path } = copyWith(/interceptionMode: REDIRECT/, 'interceptionMode: REDIRCT');
    await assert.rejects(loadConfig(path), (err: ConfigError) => {
      assert.equal(err.exitCode, 4);
      assert.match(err.message, new RegExp(`^${join(path, 'values.yaml')}:19: global\\.proxy\\.interceptionMode: must be REDIRECT, TPROXY or NONE`));
      return true;
    });
  });

  it('every problem is reported at once', async () => {
    const path = join(dir, 'many');
    mkdirSync(path);
    writeFileSync(join(path, 'config.yaml'), CONFIG);
    writeFileSync(join(path, 'values.yaml'), VALUES.replace('statusPort: 15021', 'statusPort: 70000').replace('uid: 1337', 'uid: me'));
    const found = await issues(path);
    assert.deepEqual(found.map((i) => i.path).sort(), ['global.proxy.statusPort', 'global.proxy.uid']);
  });

  for (const [what, from, to] of [
    ['statusPort 0 turns the probes off', /statusPort: 15021/, 'statusPort: 0'],
    ['a port as a string of digits, as an annotation gives it', /metricsPort: 15090/, 'metricsPort: "15090"'],
    ['TPROXY, which the annotation takes too', /interceptionMode: REDIRECT/, 'interceptionMode: TPROXY'],
    ['nativeSidecar "true", as the annotation gives it', /nativeSidecar: false/, 'nativeSidecar: "true"'],
    ['NONE', /interceptionMode: REDIRECT/, 'interceptionMode: NONE'],
    ['a log level with scopes', /logLevel: warning/, 'logLevel: "info,misc:error"'],
    ['a proxy resource left out', /^ {8}cpu: 100m\n/m, ''],
    ['a proxy resource set to "" (unset)', /cpu: 2000m/, 'cpu: ""'],
    [
      'no hub when both images are whole',
      /^ {2}hub: docker\.io\/istio\n([\s\S]*?)image: proxyv2([\s\S]*?)image: proxyv2/m,
      '$1image: r.example/p:1$2image: r.example/i:1',
    ],
    ['a numeric quantity', /cpu: 10m/, 'cpu: 1'],
  ] as const) {
    it(`valid: ${what}`, async () => {
      const { path } = copyWith(from, to);
      const loaded = await loadConfig(path);
      assert.deepEqual(loaded.warnings, []);
    });
  }

  it('an unknown key far from every known key is a warning with file and line; the config loads', async () => {
    const { path, values } = copyWith(/^ {2}clusterDomain:/m, '  owner: team-a\n  clusterDomain:');
    const loaded = await loadConfig(path);
    assert.deepEqual(loaded.warnings, [
      `${join(path, 'values.yaml')}:${lineOf(values, /owner: team-a/)}: global.owner: unknown key "owner": the built-in sidecar template does not read it, so it has no effect; known keys here: hub, tag, imagePullPolicy, clusterDomain, proxy, proxy_init`,
    ]);
  });

  it('JSON values (Istio layout, values.json) name the line too', async () => {
    const path = join(dir, 'json');
    mkdirSync(path);
    writeFileSync(join(path, 'config'), CONFIG);
    const values = JSON.parse(JSON.stringify(parseConfig(CONFIG, VALUES).values)) as { global: { proxy: Record<string, unknown> } };
    values.global.proxy.statusPort = '15021x';
    const text = JSON.stringify(values, null, 2);
    writeFileSync(join(path, 'values.json'), text);
    const found = await issues(path);
    assert.deepEqual(found, [
      { file: join(path, 'values.json'), path: 'global.proxy.statusPort', line: lineOf(text, /"statusPort"/), message: found[0].message },
    ]);
  });

  it('inline values of a one-file config: the key path starts at values, the file is the config', async () => {
    const inline = VALUES.replace(/^ {2}hub:/m, '  hubb:')
      .split('\n')
      .map((l) => `  ${l}`)
      .join('\n');
    const file = join(dir, 'one.yaml');
    const text = `${CONFIG}values:\n${inline}\n`;
    writeFileSync(file, text);
    const found = await issues(file);
    assert.deepEqual(
      found.map((i) => [i.file, i.path, i.line]),
      [[file, 'values.global.hubb', lineOf(text, /^ {4}hubb:/)]],
    );
  });

  it("a config with a template of its own is not judged by the built-in template's keys", async () => {
    const own = CONFIG.replace('{{- $proxy := .Values.global.proxy -}}', '{{- $proxy := .Values.global.proxy }}{{/* mine */ -}}');
    assert.notEqual(own, CONFIG);
    const config = parseConfig(
      own,
      VALUES.replace('interceptionMode: REDIRECT', 'interceptionMode: REDIRCT').replace(/^ {2}clusterDomain:/m, '  owner: x\n  clusterDomain:'),
    );
    assert.deepEqual(config.warnings, []);
    const shipper = readFileSync(new URL('../../examples/log-shipper/config.yaml', import.meta.url), 'utf8');
    assert.deepEqual(parseConfig(shipper, undefined, 'examples/log-shipper/config.yaml').warnings, []);
  });
});
