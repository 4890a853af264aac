/**
 * @module test/support/reload-storm-driver
 * Config and certificate rotations under load, half of them bad (reliability.md section 5,
 * goals 6 and 7). The config is the built-in one in Istio's ConfigMap layout (`config`,
 * `values`), each good version with its own image tag, so every answer shows which version
 * served it; certificates come from one CA the client trusts, so a bad certificate that got
 * served would fail the handshake. Every version is written the way the kubelet updates a
 * mounted ConfigMap or Secret (atomic `..data` swap). After each write the driver waits until
 * the server has looked at it (/readyz reload counters), then checks with fresh connections:
 * a good version serves, a bad one was refused and the last good one still serves.
 * Invariants: no request fails; no answer mixes two configs; no answer comes from a refused
 * version; no connection gets a refused certificate; the failure counters are exact.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateCA, issueServingCert, type CertificateAuthority } from '../../src/certs/index.js';
import { atomicWrite } from './atomic-writer.js';
import { oddCertificate } from './cert-fixtures.js';
import { WEBHOOK_PATH } from './hostile-requests.js';
import { makeAgent, runFixedRate, sendOne, type LoadRequest, type RequestRecord } from './load-client.js';
import { REPO_ROOT } from './server-process.js';

export interface ReloadCounters {
  reloads: number;
  failures: number;
}

export interface StormTarget {
  port: number;
  configDir: string;
  certDir: string;
  /** The server's reload counters (from /readyz). */
  status(): Promise<{ config: ReloadCounters; certificate: ReloadCounters }>;
}

export interface StormOptions {
  configReloads: number;
  certRotations: number;
  /** Share of bad versions (0.5: half). */
  badShare: number;
  rate: number;
  connections: number;
  /** The request body (a review the config injects) and its uid. */
  review: Buffer;
  uid: string;
  /** How long to wait for the server to notice a write. */
  noticeTimeoutMs?: number;
  log?: (line: string) => void;
}

interface StormEvent {
  kind: 'config' | 'cert';
  good: boolean;
  variant: string;
  /** ms from the write to the server having looked at it (counter moved). */
  noticedMs?: number;
  /** Good versions: ms from the write until fresh requests see it. */
  liveMs?: number;
  problem?: string;
}

export interface StormReport {
  events: StormEvent[];
  requests: { ok: number; failed: number };
  problems: string[];
  acceptedTags: string[];
  servedCerts: number;
  expectedFailures: { config: number; cert: number };
  countedFailures: { config: number; cert: number };
  maxLiveMs: { config: number; cert: number };
  failures: string[];
  ok: boolean;
}

/** The storm's material: a CA the client trusts, and generators of good and bad versions. */
export interface StormMaterial {
  ca: CertificateAuthority;
  configText: string;
  valuesText: string;
}

export async function stormMaterial(): Promise<StormMaterial> {
  const ca = await generateCA({ commonName: 'reload-storm-ca', now: new Date(Date.now() - 30 * 86_400_000) });
  return {
    ca,
    configText: readFileSync(join(REPO_ROOT, 'defaults', 'config.yaml'), 'utf8'),
    valuesText: readFileSync(join(REPO_ROOT, 'defaults', 'values.yaml'), 'utf8'),
  };
}

/** Config version `gen` (good): the built-in config with image tag `g<gen>`. */
function goodConfig(m: StormMaterial, gen: number): Record<string, string> {
  const values = m.valuesText.replace(/^(\s*tag:\s*).*$/m, `$1"g${gen}"`);
  if (values === m.valuesText) throw new Error('defaults/values.yaml has no global tag to vary');
  return { config: m.configText, values };
}

const BAD_CONFIGS: [string, (m: StormMaterial, n: number) => Record<string, string> | 'delete-config'][] = [
  ['invalid YAML', (m, n) => ({ config: `${m.configText}\n# ${n}\n  bad: [unclosed`, values: m.valuesText })],
  ['invalid schema', (m, n) => ({ config: `# ${n}\n${m.configText.replace('policy: enabled', 'policy: 42')}`, values: m.valuesText })],
  ['empty', (m, n) => ({ config: '', values: `${m.valuesText}\n# ${n}\n` })],
  ['half-written', (m, n) => ({ config: m.configText.slice(0, Math.floor(m.configText.length / 2) - (n % 50)), values: m.valuesText })],
  [
    'template does not parse',
    (m, n) => ({ config: `# ${n}\n${m.configText.replace('{{- $proxy := .Values.global.proxy -}}', '{{- if }}')}`, values: m.valuesText }),
  ],
  ['YAML bomb', (m, n) => ({ config: `# ${n}\n${bomb()}`, values: m.valuesText })],
  ['values not YAML', (m, n) => ({ config: m.configText, values: `${m.valuesText}\n# ${n}\n: : :` })],
  ['config file deleted', () => 'delete-config'],
];

function bomb(): string {
  const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
  for (const [x, y] of [
    ['b', 'a'],
    ['c', 'b'],
    ['d', 'c'],
    ['e', 'd'],
    ['f', 'e'],
  ])
    lines.push(`${x}: &${x} [${Array(9).fill(`*${y}`).join(',')}]`);
  lines.push(`g: [${Array(9).fill('*f').join(',')}]`);
  return `${lines.join('\n')}\n`;
}

type CertFiles = Record<string, string> | 'missing-cert';

async function goodCert(m: StormMaterial): Promise<{ certPem: string; keyPem: string }> {
  return issueServingCert(m.ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], validityDays: 30 });
}

const BAD_CERTS: [string, (m: StormMaterial, last: { certPem: string; keyPem: string }, n: number) => Promise<CertFiles>][] = [
  ['expired', async (m) => pair(await issueServingCert(m.ca, { dnsNames: ['localhost'], validityDays: 1, now: new Date(Date.now() - 10 * 86_400_000) }))],
  ['not yet valid', async (m) => pair(await issueServingCert(m.ca, { dnsNames: ['localhost'], validityDays: 5, now: new Date(Date.now() + 5 * 86_400_000) }))],
  ['key mismatch', async (m) => ({ 'tls.crt': (await goodCert(m)).certPem, 'tls.key': (await goodCert(m)).keyPem })],
  ['no SAN', async () => pair(await oddCertificate({}))],
  ['truncated PEM', async (_m, last, n) => ({ 'tls.crt': last.certPem.slice(0, 120 + (n % 200)), 'tls.key': last.keyPem })],
  ['cert file missing', async () => 'missing-cert'],
];

function pair(p: { certPem: string; keyPem: string }): Record<string, string> {
  return { 'tls.crt': p.certPem, 'tls.key': p.keyPem };
}

const fingerprint = (pem: string): string => new X509Certificate(pem).fingerprint256;
const hashOf = (files: Record<string, string> | string): string => createHash('sha256').update(JSON.stringify(files)).digest('hex');

/** The image tags in an answer's patch (all of them: one answer must not mix configs). */
function tagsOf(body: Buffer): string[] {
  const r = JSON.parse(body.toString('utf8')) as { response?: { uid?: string; patch?: string } };
  if (r.response?.patch === undefined) return [];
  const text = Buffer.from(r.response.patch, 'base64').toString('utf8');
  return [...new Set([...text.matchAll(/docker\.io\/istio\/proxyv2:([^"\\]+)/g)].map((x) => x[1]))];
}

/** Write the first good config and certificate (before the server starts); returns them. */
export async function seedStorm(m: StormMaterial, configDir: string, certDir: string): Promise<{ certPem: string; keyPem: string }> {
  await atomicWrite(configDir, goodConfig(m, 0));
  const cert = await goodCert(m);
  await atomicWrite(certDir, pair(cert));
  return cert;
}

export async function runStorm(target: StormTarget, m: StormMaterial, first: { certPem: string; keyPem: string }, o: StormOptions): Promise<StormReport> {
  const log = o.log ?? (() => undefined);
  const noticeTimeout = o.noticeTimeoutMs ?? 15_000;
  const goodTags = new Set(['g0']);
  const goodCerts = new Set([fingerprint(first.certPem)]);
  let lastGoodTag = 'g0';
  let lastGoodCert = first;
  const problems: string[] = [];
  const seen = new Map<string, number>();
  const check = (status: number, body: Buffer): string | undefined => {
    if (status !== 200) return `HTTP ${status}`;
    const uid = (JSON.parse(body.toString('utf8')) as { response?: { uid?: string } }).response?.uid;
    if (uid !== o.uid) return `uid ${JSON.stringify(uid)} instead of ${o.uid}`;
    const tags = tagsOf(body);
    if (tags.length !== 1) return `the patch shows ${tags.length === 0 ? 'no image' : `images of several configs (${tags.join(', ')})`}`;
    if (!goodTags.has(tags[0])) return `served by a config that was never accepted: ${tags[0]}`;
    return undefined;
  };
  // One request in four opens a connection of its own, so handshakes happen all through the rotations.
  const req = (i = 0): LoadRequest => ({
    kind: 'valid',
    label: 'storm',
    path: WEBHOOK_PATH,
    headers: { 'Content-Type': 'application/json' },
    body: o.review,
    check,
    fresh: i % 4 === 3,
  });
  const trust = { ca: m.ca.certPem, servername: 'localhost' };

  // Fresh-connection probe: which config and which certificate a new client gets now.
  const probe = async (): Promise<{ tag?: string; peer?: string; problem?: string }> => {
    const agent = makeAgent(1, trust);
    let tag: string | undefined;
    const r = await sendOne(
      agent,
      { port: target.port, ...trust, capturePeer: true },
      { ...req(), check: (s, b) => (s === 200 ? void (tag = tagsOf(b)[0]) : `HTTP ${s}`) },
      performance.now(),
    );
    agent.destroy();
    return { tag, peer: r.peer, problem: r.problem };
  };

  const controller = new AbortController();
  const traffic = runFixedRate({
    port: target.port,
    rate: o.rate,
    connections: o.connections,
    durationMs: 24 * 3600_000,
    signal: controller.signal,
    capturePeer: true,
    ...trust,
    next: req,
    onRecord: (r: RequestRecord) => {
      if (r.peer !== undefined) seen.set(r.peer, (seen.get(r.peer) ?? 0) + 1);
    },
  });

  const events: StormEvent[] = [];
  const expected = { config: 0, cert: 0 };
  const lastKey = { config: hashOf(goodConfig(m, 0)), cert: hashOf(pair(first)) };
  // Certificate rotations spread evenly among the config reloads.
  const total = o.configReloads + o.certRotations;
  const plan: ('config' | 'cert')[] = Array.from({ length: total }, (_, i) =>
    Math.floor(((i + 1) * o.certRotations) / total) > Math.floor((i * o.certRotations) / total) ? 'cert' : 'config',
  );
  const index = { config: 0, cert: 0 };
  const bad = { config: 0, cert: 0 };
  let gen = 0;
  let n = 0;
  for (const kind of plan) {
    n++;
    // Within each kind, version k is bad when the running share of bad ones falls behind.
    const k = index[kind]++;
    const good = !(Math.floor((k + 1) * o.badShare) > Math.floor(k * o.badShare));
    const before = await target.status();
    const event: StormEvent = { kind, good, variant: 'good' };
    const written = performance.now();
    let key: string;
    if (kind === 'config') {
      if (good) {
        gen++;
        const files = goodConfig(m, gen);
        key = hashOf(files);
        goodTags.add(`g${gen}`); // accepted from the moment it is written: answers may show it before we look
        await atomicWrite(target.configDir, files);
      } else {
        const [variant, make] = BAD_CONFIGS[bad.config++ % BAD_CONFIGS.length];
        event.variant = variant;
        const files = make(m, n);
        key = hashOf(files);
        await atomicWrite(target.configDir, files === 'delete-config' ? { values: m.valuesText } : files);
      }
    } else if (good) {
      const cert = await goodCert(m);
      key = hashOf(pair(cert));
      goodCerts.add(fingerprint(cert.certPem));
      await atomicWrite(target.certDir, pair(cert));
      lastGoodCert = cert;
    } else {
      const [variant, make] = BAD_CERTS[bad.cert++ % BAD_CERTS.length];
      event.variant = variant;
      const files = await make(m, lastGoodCert, n);
      key = hashOf(files);
      await atomicWrite(target.certDir, files === 'missing-cert' ? { 'tls.key': lastGoodCert.keyPem } : files);
    }
    const countsAs = !good && key !== lastKey[kind];
    if (countsAs) expected[kind]++;
    const changed = key !== lastKey[kind];
    lastKey[kind] = key;
    // Wait for the server to look at it: a counter moves (or, for identical content, nothing will).
    const field = kind === 'config' ? 'config' : 'certificate';
    const moved = (s: Awaited<ReturnType<StormTarget['status']>>): boolean =>
      s[field].reloads + s[field].failures > before[field].reloads + before[field].failures;
    if (changed) {
      const deadline = performance.now() + noticeTimeout;
      for (;;) {
        if (moved(await target.status())) break;
        if (performance.now() > deadline) {
          event.problem = `the server did not look at the new ${kind} within ${noticeTimeout} ms`;
          break;
        }
        await new Promise((r) => setTimeout(r, 10));
      }
      event.noticedMs = performance.now() - written;
    }
    if (good && kind === 'config') lastGoodTag = `g${gen}`;
    // What a new client gets now: the last good config and certificate, whatever was written.
    const p = await probe();
    if (p.problem !== undefined) event.problem = `probe failed: ${p.problem}`;
    else if (p.tag !== lastGoodTag) event.problem = `a new request got config ${p.tag}, expected the last good ${lastGoodTag}`;
    else if (p.peer !== fingerprint(lastGoodCert.certPem)) event.problem = 'a new connection got another certificate than the last good one';
    if (good) event.liveMs = performance.now() - written;
    events.push(event);
    if (event.problem) log(`${kind} ${event.variant}: ${event.problem}`);
    if (n % 20 === 0) log(`${n}/${plan.length} rotations done`);
  }
  controller.abort();
  const summary = await traffic;
  const final = await target.status();
  for (const peer of seen.keys())
    if (!goodCerts.has(peer)) problems.push(`a connection was served a certificate that was never accepted (${peer.slice(0, 20)}…)`);
  problems.push(...summary.problems);
  const report: StormReport = {
    events,
    requests: { ok: summary.byKind.valid.ok, failed: summary.byKind.valid.failed },
    problems,
    acceptedTags: [...goodTags],
    servedCerts: seen.size,
    expectedFailures: expected,
    countedFailures: { config: final.config.failures, cert: final.certificate.failures },
    maxLiveMs: {
      config: Math.max(0, ...events.filter((e) => e.kind === 'config' && e.good).map((e) => e.liveMs ?? 0)),
      cert: Math.max(0, ...events.filter((e) => e.kind === 'cert' && e.good).map((e) => e.liveMs ?? 0)),
    },
    failures: [],
    ok: true,
  };
  const fail = (why: string): void => void report.failures.push(why);
  if (report.requests.failed > 0) fail(`${report.requests.failed} requests failed during the storm (must be 0)`);
  if (report.requests.ok === 0) fail('no request succeeded');
  for (const e of events) if (e.problem) fail(`${e.kind} (${e.good ? 'good' : e.variant}): ${e.problem}`);
  for (const p of problems.filter((x) => !x.startsWith('valid storm'))) fail(p);
  if (report.countedFailures.config !== expected.config) fail(`config failure counter ${report.countedFailures.config}, expected ${expected.config}`);
  if (report.countedFailures.cert !== expected.cert) fail(`certificate failure counter ${report.countedFailures.cert}, expected ${expected.cert}`);
  report.ok = report.failures.length === 0;
  return report;
}

export function renderStorm(r: StormReport): string {
  const by = (kind: 'config' | 'cert', good: boolean): StormEvent[] => r.events.filter((e) => e.kind === kind && e.good === good);
  const med = (xs: number[]): string => (xs.length === 0 ? 'n/a' : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(0));
  const lines = [
    `config reloads: ${by('config', true).length} good, ${by('config', false).length} bad; certificate rotations: ${by('cert', true).length} good, ${by('cert', false).length} bad`,
    `requests during the storm: ${r.requests.ok} ok, ${r.requests.failed} failed`,
    `good version live after (median / max): config ${med(by('config', true).map((e) => e.liveMs ?? 0))} / ${r.maxLiveMs.config.toFixed(0)} ms, certificate ${med(by('cert', true).map((e) => e.liveMs ?? 0))} / ${r.maxLiveMs.cert.toFixed(0)} ms`,
    `failure counters (server / expected): config ${r.countedFailures.config} / ${r.expectedFailures.config}, certificate ${r.countedFailures.cert} / ${r.expectedFailures.cert}`,
    `bad variants: ${[...new Set(r.events.filter((e) => !e.good).map((e) => `${e.kind}: ${e.variant}`))].join('; ')}`,
    `distinct certificates seen by clients: ${r.servedCerts} (of ${r.events.filter((e) => e.kind === 'cert' && e.good).length + 1} accepted)`,
  ];
  if (r.problems.length > 0) lines.push('', 'problems:', ...r.problems.slice(0, 10).map((p) => `  ${p}`));
  lines.push(
    '',
    r.ok
      ? 'verdict: OK'
      : `verdict: FAILED\n${r.failures
          .slice(0, 20)
          .map((f) => `  - ${f}`)
          .join('\n')}`,
  );
  return lines.join('\n');
}
