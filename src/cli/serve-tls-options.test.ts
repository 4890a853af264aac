import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLifetime, resolveTlsSecretOptions } from './serve-tls-options.js';
import { runCli } from './command-tree.js';
import { memoryIO } from '../../test/support/memory-io.js';

test('lifetimes: whole days or a Go duration, from a minute to 100 years; anything else is refused', () => {
  assert.equal(parseLifetime('90d'), 90 * 86_400_000);
  assert.equal(parseLifetime('12h'), 12 * 3_600_000);
  assert.equal(parseLifetime('1m'), 60_000);
  assert.equal(parseLifetime('90s'), 90_000);
  // Go's grammar, as cert-manager's duration takes it.
  assert.equal(parseLifetime('2160h'), 90 * 86_400_000);
  assert.equal(parseLifetime('1h30m'), 90 * 60_000);
  assert.equal(parseLifetime('1.5h'), 90 * 60_000);
  for (const bad of ['30s', '59', '36501d', '876001h']) assert.throws(() => parseLifetime(bad), /expected from 1m to 36500d/, bad);
  for (const bad of ['1.5d', 'd', '-1d', '90 days', '1w'])
    assert.throws(() => parseLifetime(bad), /expected a whole number of days such as 90d, or a Go duration/, bad);
});

test('the flags that only make sense together are refused apart, saying which is missing', () => {
  const refuse = (o: Parameters<typeof resolveTlsSecretOptions>[0], message: RegExp) =>
    assert.throws(
      () => resolveTlsSecretOptions(o),
      (e: Error & { code?: string }) => e.code === 'SI_USAGE' && message.test(e.message),
      message.source,
    );
  refuse({ tlsProvision: 'si' }, /--tls-provision needs --tls-secret/);
  refuse({ tlsSecret: 's', tlsDir: '/d' }, /use one certificate source/);
  refuse({ tlsSecret: 's', tlsCaValidity: 86_400_000 }, /--tls-ca-validity only goes with --tls-provision/);
  refuse({ tlsSecret: 's', tlsProvision: 'si' }, /--tls-provision needs --webhook-config NAME/);
  refuse({ tlsSecret: 's', tlsProvision: 'si', webhookConfig: 'si', tlsCaValidity: 60_000, tlsCertValidity: 120_000 }, /at least --tls-cert-validity/);
  // A certificate shorter than nine reads: replicas could miss a renewal.
  refuse({ tlsSecret: 's', tlsProvision: 'si', webhookConfig: 'si', tlsCertValidity: 60_000 }, /at least 1m30s with --tls-secret-resync 10s/);
  assert.equal(resolveTlsSecretOptions({ tlsSecret: 's' }), undefined);
  assert.deepEqual(resolveTlsSecretOptions({ tlsSecret: 's', tlsProvision: 'si', webhookConfig: 'si', tlsCertValidity: 60_000, tlsSecretResync: 2000 }), {
    service: 'si',
    caValidityMs: 3650 * 86_400_000,
    certValidityMs: 60_000,
    clusterDomain: 'cluster.local',
  });
});

test('serve --tls-secret outside a pod exits with one line saying what it needs', async () => {
  const io = memoryIO();
  const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
  delete process.env.KUBERNETES_SERVICE_HOST;
  delete process.env.KUBERNETES_SERVICE_PORT;
  try {
    const code = await runCli(['serve', '--tls-secret', 'si-certs', '--port', '0'], io);
    assert.equal(code, 8);
    assert.match(io.err, /not running in a Kubernetes pod, so the caBundle \(--webhook-config\) and the TLS Secret \(--tls-secret\) cannot be reached/);
  } finally {
    if (saved.host !== undefined) process.env.KUBERNETES_SERVICE_HOST = saved.host;
    if (saved.port !== undefined) process.env.KUBERNETES_SERVICE_PORT = saved.port;
  }
});
