/**
 * @module cli/serve-preflight
 * What `serve` reads from disk, checked before anything starts, so a user's mistake (a
 * --tls-dir that does not exist, a Secret whose files are not PEM, a directory where a file
 * should be, a --config that is not there) is one line saying which file and what to give,
 * with a catalogue code, not an internal error from deep in the server's start-up. The checks
 * are the ones the server applies itself (certs/validate); only the wording is added here.
 */
import { stat } from 'node:fs/promises';
import { CertError, ConfigError } from '../errors.js';
import { validateKeyPairFiles } from '../certs/validate-cert.js';
import type { TlsSource } from '../admission/start.js';

const TLS_HELP =
  'give a certificate and its key (PEM): --tls-dir DIR holding tls.crt and tls.key (a mounted kubernetes.io/tls Secret, or what sidecar-injector certs --out DIR writes), or --tls-cert FILE --tls-key FILE';

async function problem(path: string): Promise<string | undefined> {
  try {
    const info = await stat(path);
    return info.isFile() ? undefined : 'not a regular file';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'no such file or directory' : (code ?? String(err));
  }
}

export async function preflight(options: { config?: string; clientCa?: string; tlsCa?: string }, tls: TlsSource | undefined): Promise<void> {
  if (options.config !== undefined) {
    try {
      await stat(options.config);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new ConfigError(
        'SI_CONFIG_READ',
        `cannot read the injector config at ${options.config}: ${code === 'ENOENT' ? 'no such file or directory' : code}; --config takes a config directory, a YAML file or a ConfigMap manifest`,
        { cause: err },
      );
    }
  }
  if (tls?.kind === 'files') {
    for (const file of [tls.certFile, tls.keyFile]) {
      const why = await problem(file);
      if (why !== undefined) throw new CertError('SI_CERT_INVALID', `cannot read ${file}: ${why}; ${TLS_HELP}`);
    }
    const pair = await validateKeyPairFiles(tls.certFile, tls.keyFile);
    // Only what makes the pair unusable at all; the server itself judges the rest (and says so).
    if (!pair.ok && ['unreadable', 'bad-certificate', 'bad-key', 'key-mismatch'].includes(pair.problem)) {
      throw new CertError('SI_CERT_INVALID', `${tls.certFile} and ${tls.keyFile}: ${pair.reason}; ${TLS_HELP}`);
    }
  }
  for (const [flag, file] of [
    ['--client-ca', options.clientCa],
    ['--tls-ca', options.tlsCa],
  ] as const) {
    if (file === undefined) continue;
    const why = await problem(file);
    if (why !== undefined) throw new CertError('SI_CERT_INVALID', `cannot read ${flag} ${file}: ${why}; give a PEM file of CA certificates`);
  }
}
