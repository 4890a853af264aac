import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import {
  planProvision,
  renewalDue,
  caFingerprint,
  issuerFingerprint,
  NEXT_CA_CERT_KEY,
  NEXT_CA_KEY_KEY,
  type ProvisionPlan,
  type ProvisionPolicy,
} from './provision.js';
import { generateCA, issueServingCert } from './create-certs.js';
import { serviceDnsNames } from './names.js';
import { decodeCertificates } from './pem.js';
import { fingerprint } from './ca-bundle.js';

const MIN = 60_000;
const DAY = 86_400_000;
const names = serviceDnsNames('si', 'mesh');
const policy: ProvisionPolicy = { dnsNames: names, caValidityMs: 30 * DAY, certValidityMs: 3 * DAY };
const never = () => undefined;
const t0 = new Date('2030-01-01T00:00:00Z');
const at = (ms: number) => new Date(t0.getTime() + ms);

function written(plan: ProvisionPlan): Record<string, string> {
  assert.equal(plan.action, 'write', JSON.stringify(plan));
  return (plan as Extract<ProvisionPlan, { action: 'write' }>).data;
}
const fps = (pem: string) => decodeCertificates(pem).map((d) => fingerprint(d));
const issuerOf = (leafPem: string, caPems: string) => {
  const leaf = new X509Certificate(leafPem);
  return decodeCertificates(caPems)
    .map((d) => new X509Certificate(d))
    .find((ca) => leaf.checkIssued(ca) && leaf.verify(ca.publicKey));
};

test('an empty Secret gets a CA and a serving certificate for the Service names, chained to it', async () => {
  const plan = await planProvision({ data: {}, managed: false, now: t0, trustedSince: never }, policy);
  const data = written(plan);
  assert.deepEqual((plan as { steps: string[] }).steps, ['create', 'issue-cert']);
  const leaf = new X509Certificate(data['tls.crt']);
  for (const n of names) assert.ok(leaf.checkHost(n, { subject: 'never' }), n);
  assert.ok(leaf.checkPrivateKey((await import('node:crypto')).createPrivateKey(data['tls.key'])));
  assert.ok(issuerOf(data['tls.crt'], data['ca.crt']), 'issued by the CA in ca.crt');
  assert.equal(new Date(leaf.validTo).getTime(), Math.floor(at(3 * DAY).getTime() / 1000) * 1000);
  assert.equal(data[NEXT_CA_CERT_KEY], undefined);
  // Read back as is: nothing to do.
  assert.deepEqual(await planProvision({ data, managed: true, now: at(MIN), trustedSince: never }, policy), { action: 'keep' });
});

test('certificates someone else wrote are never replaced', async () => {
  const ca = await generateCA({ now: t0 });
  const leaf = await issueServingCert(ca, { dnsNames: ['other.example'], now: t0 });
  const plan = await planProvision(
    { data: { 'tls.crt': leaf.certPem, 'tls.key': leaf.keyPem }, managed: false, now: at(400 * DAY), trustedSince: never },
    policy,
  );
  assert.equal(plan.action, 'foreign');
});

test('the serving certificate is renewed at two thirds of its life, from the same CA', async () => {
  const first = written(await planProvision({ data: {}, managed: false, now: t0, trustedSince: never }, policy));
  const before = await planProvision({ data: first, managed: true, now: at(2 * DAY - MIN), trustedSince: never }, policy);
  assert.equal(before.action, 'keep');
  const plan = await planProvision({ data: first, managed: true, now: at(2 * DAY), trustedSince: never }, policy);
  const data = written(plan);
  assert.deepEqual((plan as { steps: string[] }).steps, ['renew-cert']);
  assert.notEqual(data['tls.crt'], first['tls.crt']);
  assert.equal(data['ca.crt'], first['ca.crt']);
  assert.equal(data['ca.key'], first['ca.key']);
});

test('a CA rotation: staged next to the old one, signing only once the caBundle has held it for the switch delay', async () => {
  const first = written(await planProvision({ data: {}, managed: false, now: t0, trustedSince: never }, policy));
  const oldCa = fps(first['ca.crt'])[0];
  // 20 days in: the CA is due. The leaf (renewed meanwhile) is not.
  const renewed = written(await planProvision({ data: first, managed: true, now: at(19 * DAY), trustedSince: never }, policy));
  const staged = written(await planProvision({ data: renewed, managed: true, now: at(20 * DAY), trustedSince: never }, policy));
  assert.equal(staged['tls.crt'], renewed['tls.crt'], 'the serving certificate stays');
  assert.equal(staged['ca.key'], renewed['ca.key'], 'the old CA still signs');
  const nextFp = caFingerprint({ certPem: staged[NEXT_CA_CERT_KEY] });
  assert.deepEqual(fps(staged['ca.crt']), [oldCa, nextFp], 'both CAs are trusted');

  // Not yet in the caBundle: no switch.
  assert.equal((await planProvision({ data: staged, managed: true, now: at(20.5 * DAY), trustedSince: never }, policy)).action, 'keep');
  const trusted = (since: Date) => (fp: string) => (fp === nextFp ? since : undefined);
  assert.equal(
    (await planProvision({ data: staged, managed: true, now: at(20 * DAY + 9_000), trustedSince: trusted(at(20 * DAY)) }, policy)).action,
    'keep',
    'before the switch delay',
  );
  const plan = await planProvision({ data: staged, managed: true, now: at(20 * DAY + 10_000), trustedSince: trusted(at(20 * DAY)) }, policy);
  const switched = written(plan);
  assert.deepEqual((plan as { steps: string[] }).steps, ['switch-ca', 'issue-cert']);
  assert.ok(issuerOf(switched['tls.crt'], staged[NEXT_CA_CERT_KEY]), 'the new certificate comes from the new CA');
  assert.deepEqual(fps(switched['ca.crt']), [nextFp, oldCa], 'the old CA stays trusted after the switch');
  assert.equal(switched[NEXT_CA_CERT_KEY], undefined);
  assert.equal(switched[NEXT_CA_KEY_KEY], undefined);
  // Once the old CA has expired it leaves ca.crt with the next write.
  const later = written(await planProvision({ data: switched, managed: true, now: at(31 * DAY), trustedSince: never }, policy));
  assert.deepEqual(fps(later['ca.crt']), [nextFp]);
});

test('a renewal while a staged CA waits is issued by the old CA, which is still the one the apiserver is sure to trust', async () => {
  const first = written(await planProvision({ data: {}, managed: false, now: t0, trustedSince: never }, policy));
  const staged = written(await planProvision({ data: first, managed: true, now: at(20 * DAY), trustedSince: never }, policy));
  const plan = await planProvision({ data: staged, managed: true, now: at(22 * DAY), trustedSince: never }, policy);
  const data = written(plan);
  assert.deepEqual((plan as { steps: string[] }).steps, ['renew-cert']);
  assert.equal(issuerOf(data['tls.crt'], first['ca.crt'])?.fingerprint256, new X509Certificate(first['ca.crt']).fingerprint256);
  assert.equal(data[NEXT_CA_CERT_KEY], staged[NEXT_CA_CERT_KEY], 'the staged CA keeps waiting');
});

test('damage is repaired: a certificate for other names, a missing key, an expired signing CA with a staged one', async () => {
  const first = written(await planProvision({ data: {}, managed: false, now: t0, trustedSince: never }, policy));
  const renamed = await planProvision(
    { data: first, managed: true, now: at(MIN), trustedSince: never },
    { ...policy, dnsNames: serviceDnsNames('other', 'mesh') },
  );
  assert.match((renamed as { why: string[] }).why.join(), /does not cover "other"/);
  assert.equal(written(renamed)['ca.crt'], first['ca.crt']);
  const noKey = await planProvision({ data: { ...first, 'tls.key': '' }, managed: true, now: at(MIN), trustedSince: never }, policy);
  assert.deepEqual((noKey as { steps: string[] }).steps, ['issue-cert']);
  const brokenCa = await planProvision({ data: { ...first, 'ca.key': 'garbage' }, managed: true, now: at(MIN), trustedSince: never }, policy);
  assert.deepEqual((brokenCa as { steps: string[] }).steps, ['create', 'issue-cert']);
  const staged = written(await planProvision({ data: first, managed: true, now: at(20 * DAY), trustedSince: never }, policy));
  const rescued = await planProvision({ data: staged, managed: true, now: at(31 * DAY), trustedSince: never }, policy);
  assert.deepEqual((rescued as { steps: string[] }).steps, ['switch-ca', 'issue-cert'], 'the staged CA takes over from an expired one');
});

test('issuerFingerprint finds the CA of ca.crt that anchors tls.crt, or none', async () => {
  const [a, b] = await Promise.all([generateCA({ now: t0 }), generateCA({ now: t0 })]);
  const leaf = await issueServingCert(a, { dnsNames: names, now: t0 });
  assert.equal(issuerFingerprint(leaf.certPem, b.certPem + a.certPem), caFingerprint(a));
  assert.equal(issuerFingerprint(leaf.certPem, b.certPem), undefined);
  assert.equal(issuerFingerprint('garbage', a.certPem), undefined);
});

test('renewalDue counts the life from the issue time, not the clock-skew back-dating', async () => {
  const ca = await generateCA({ validityMs: 3 * MIN, now: t0 });
  assert.equal(renewalDue(ca, at(2 * MIN - 1000)), false);
  assert.equal(renewalDue(ca, at(2 * MIN)), true);
});

/**
 * The whole protocol on a virtual clock: replicas poll the Secret at their own pace, run the
 * planner, write (one at a time, as resourceVersion preconditions make it), serve what they
 * read and reconcile the caBundle with the real planner; the apiserver trusts the bundle as it
 * was `lagMs` ago. Checked every second: each replica serves an unexpired certificate the
 * apiserver trusts. Returns what happened, or the first violation.
 */
async function simulate(o: {
  pollMs: number[];
  lagMs: number;
  switchDelayMs: number;
  minutes: number;
}): Promise<{ violation?: string; writes: number; caSwitches: number; checks: number }> {
  const { planCaBundle } = await import('./ca-bundle.js');
  const sim = { dnsNames: names, caValidityMs: 12 * MIN, certValidityMs: 4 * MIN, switchDelayMs: o.switchDelayMs };
  let secret: Record<string, string> = {};
  let managed = false;
  let bundle: string | undefined;
  const history: Array<{ at: number; fps: Set<string> }> = [];
  // What each served certificate is: expiry and issuer, worked out once per certificate.
  const leaves = new Map<string, { notAfter: number; issuer: string }>();
  const replicas = o.pollMs.map((every, i) => ({ every, nextAt: i * 3_000, leaf: undefined as string | undefined, confirmed: new Map<string, Date>() }));
  const result = { writes: 0, caSwitches: 0, checks: 0 };
  for (let now = 0; now <= o.minutes * MIN; now += 1_000) {
    for (const r of replicas) {
      if (now < r.nextAt) continue;
      r.nextAt = now + r.every;
      const plan = await planProvision({ data: secret, managed, now: at(now), trustedSince: (fp) => r.confirmed.get(fp) }, sim);
      if (plan.action === 'write') {
        secret = plan.data;
        managed = true;
        result.writes++;
        if (plan.steps.includes('switch-ca')) result.caSwitches++;
      }
      r.leaf = secret['tls.crt'];
      if (!leaves.has(r.leaf)) {
        const issuer = issuerOf(r.leaf, secret['ca.crt']);
        assert.ok(issuer, 'ca.crt holds the issuer of tls.crt');
        leaves.set(r.leaf, { notAfter: new Date(new X509Certificate(r.leaf).validTo).getTime(), issuer: fingerprint(Buffer.from(issuer.raw)) });
      }
      const p = planCaBundle({ current: [secret['ca.crt']], existing: bundle, now: at(now) });
      if (!p.unchanged) {
        bundle = p.bundle;
        history.push({ at: now, fps: new Set(p.certificates.map((c) => c.fingerprint)) });
      }
      for (const c of p.certificates) if (!r.confirmed.has(c.fingerprint)) r.confirmed.set(c.fingerprint, at(now));
    }
    // Before the first caBundle reaches the apiserver nothing is trusted (serve's readiness waits for it).
    const trust = [...history].reverse().find((h) => h.at <= now - o.lagMs)?.fps;
    if (trust === undefined) continue;
    for (const [i, r] of replicas.entries()) {
      if (r.leaf === undefined) continue;
      const leaf = leaves.get(r.leaf)!;
      if (leaf.notAfter <= at(now).getTime()) return { ...result, violation: `replica ${i} serves an expired certificate at ${now / 1000} s` };
      if (!trust.has(leaf.issuer)) return { ...result, violation: `replica ${i} serves a certificate the apiserver does not trust at ${now / 1000} s` };
      result.checks++;
    }
  }
  return result;
}

test('simulation: over five CA lifetimes, every replica always serves a certificate the apiserver trusts', async () => {
  const run = await simulate({ pollMs: [10_000, 7_000, 13_000], lagMs: 2_000, switchDelayMs: 10_000, minutes: 60 });
  assert.equal(run.violation, undefined);
  assert.ok(run.caSwitches >= 4, `the CA rotated ${run.caSwitches} times`);
  assert.ok(run.writes >= 15 && run.writes < 60, `${run.writes} writes: renewals, not churn`);
  assert.ok(run.checks > 9000);
});

test('simulation: the switch delay is what protects a slow apiserver; without it a replica serves an untrusted certificate', async () => {
  const run = await simulate({ pollMs: [10_000, 7_000], lagMs: 15_000, switchDelayMs: 0, minutes: 20 });
  assert.match(run.violation ?? '', /does not trust/);
});
