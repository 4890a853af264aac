/**
 * @module certs/keys
 * Key generation and import. New keys are always ECDSA P-256 (fast, small, accepted by every
 * Kubernetes apiserver); an existing CA key brought by the user may also be P-384/P-521 or RSA,
 * in PKCS#8, SEC1 or PKCS#1 PEM, so `certs` can renew a leaf under a CA we did not create.
 * Keys are written as PKCS#8 PEM only.
 */
import { createPrivateKey, createPublicKey, webcrypto, type KeyObject } from 'node:crypto';
import { CertError } from '../errors.js';
import { encodePem } from './pem.js';
// node's own WebCrypto: key handling must not load the X.509 library (server start-up time).
const subtle = webcrypto.subtle;

type CryptoKey = webcrypto.CryptoKey;

/** What a certificate signed with a given key uses as its signature algorithm. */
type SigningAlgorithm = { name: 'ECDSA'; hash: string } | { name: 'RSASSA-PKCS1-v1_5'; hash: string };

export interface SigningKey {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  algorithm: SigningAlgorithm;
}

const P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;

/** A fresh extractable ECDSA P-256 key pair. */
export async function generateKeyPair(): Promise<SigningKey> {
  const pair = (await subtle.generateKey(P256, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  return { privateKey: pair.privateKey, publicKey: pair.publicKey, algorithm: { name: 'ECDSA', hash: 'SHA-256' } };
}

/** PKCS#8 PEM (`BEGIN PRIVATE KEY`) of an extractable private key. */
export async function exportPrivateKeyPem(key: CryptoKey): Promise<string> {
  return encodePem('PRIVATE KEY', await subtle.exportKey('pkcs8', key));
}

const EC_CURVES: Record<string, { webName: string; hash: string }> = {
  prime256v1: { webName: 'P-256', hash: 'SHA-256' },
  secp384r1: { webName: 'P-384', hash: 'SHA-384' },
  secp521r1: { webName: 'P-521', hash: 'SHA-512' },
};

/** Parse a private key PEM with node (any of PKCS#8, SEC1, PKCS#1); errors name `source`. */
export function parsePrivateKey(pem: string, source = 'private key'): KeyObject {
  try {
    return createPrivateKey({ key: pem, format: 'pem' });
  } catch (err) {
    const detail =
      (err as NodeJS.ErrnoException).code === 'ERR_MISSING_PASSPHRASE' ? 'it is encrypted; provide an unencrypted key' : 'it is not a readable PEM private key';
    throw new CertError('SI_CERT_INVALID', `${source}: ${detail}`, { cause: err });
  }
}

/** Import a PEM private key for signing certificates (a CA key). */
export async function importSigningKey(pem: string, source = 'CA key'): Promise<SigningKey> {
  const key = parsePrivateKey(pem, source);
  const pkcs8 = key.export({ type: 'pkcs8', format: 'der' });
  const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
  const type = key.asymmetricKeyType;
  try {
    if (type === 'ec') {
      const curve = EC_CURVES[key.asymmetricKeyDetails?.namedCurve ?? ''];
      if (!curve) throw unsupported(source, `EC keys on curve ${key.asymmetricKeyDetails?.namedCurve ?? '(unknown)'}`);
      const alg = { name: 'ECDSA', namedCurve: curve.webName };
      return {
        privateKey: await subtle.importKey('pkcs8', pkcs8, alg, true, ['sign']),
        publicKey: await subtle.importKey('spki', spki, alg, true, ['verify']),
        algorithm: { name: 'ECDSA', hash: curve.hash },
      };
    }
    if (type === 'rsa') {
      const alg = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
      return {
        privateKey: await subtle.importKey('pkcs8', pkcs8, alg, true, ['sign']),
        publicKey: await subtle.importKey('spki', spki, alg, true, ['verify']),
        algorithm: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
      };
    }
  } catch (err) {
    if (err instanceof CertError) throw err;
    throw new CertError('SI_CERT_INVALID', `${source}: the key could not be imported for signing: ${(err as Error).message}`, { cause: err });
  }
  throw unsupported(source, `${type ?? 'unknown'} keys`);
}

function unsupported(source: string, what: string): CertError {
  return new CertError('SI_CERT_INVALID', `${source}: ${what} are not supported for signing; use an ECDSA (P-256/P-384/P-521) or RSA CA key`);
}
