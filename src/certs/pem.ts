/**
 * @module certs/pem
 * PEM encoding and strict decoding. Certificates and keys arrive from files and Secrets that
 * may be truncated, concatenated or hand-edited, so decoding reports exactly what is wrong
 * (unterminated block, bad base64, mismatched labels) instead of passing garbage on.
 */
import { CertError } from '../errors.js';

export interface PemBlock {
  /** The label between `BEGIN ` and the dashes, e.g. `CERTIFICATE`, `PRIVATE KEY`. */
  label: string;
  der: Buffer;
}

/** Encode DER bytes as one PEM block with 64-character lines (RFC 7468). */
export function encodePem(label: string, der: Uint8Array | ArrayBuffer): string {
  const bytes = der instanceof ArrayBuffer ? Buffer.from(der) : Buffer.from(der.buffer, der.byteOffset, der.byteLength);
  const b64 = bytes.toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += 64) lines.push(b64.slice(i, i + 64));
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

const BEGIN = /^-----BEGIN ([A-Z0-9 ]+)-----$/;
const END = /^-----END ([A-Z0-9 ]+)-----$/;
const BASE64_LINE = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Decode every PEM block in `text`. Text outside blocks is ignored (OpenSSL writes
 * human-readable dumps there); anything wrong inside a block throws `SI_CERT_INVALID`
 * naming `source`. Blocks with RFC 1421 headers (`Proc-Type:`, i.e. encrypted legacy keys)
 * are refused: we cannot use them without a passphrase.
 */
export function decodePem(text: string, source = 'PEM input'): PemBlock[] {
  const blocks: PemBlock[] = [];
  const lines = text.split(/\r?\n/);
  let label: string | undefined;
  let body: string[] = [];
  let startLine = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (label === undefined) {
      const m = BEGIN.exec(line);
      if (m) {
        label = m[1];
        body = [];
        startLine = i + 1;
      } else if (END.test(line)) {
        throw invalid(source, `line ${i + 1}: END line without a matching BEGIN`);
      }
      continue;
    }
    const end = END.exec(line);
    if (end) {
      if (end[1] !== label) throw invalid(source, `line ${i + 1}: "END ${end[1]}" does not close "BEGIN ${label}" (line ${startLine})`);
      blocks.push({ label, der: decodeBody(body, source, label, startLine) });
      label = undefined;
      continue;
    }
    if (BEGIN.test(line))
      throw invalid(source, `line ${i + 1}: a new BEGIN inside the "${label}" block opened on line ${startLine} (truncated or concatenated badly)`);
    if (line.includes(':'))
      throw invalid(source, `the "${label}" block on line ${startLine} has headers (an encrypted legacy key?); provide an unencrypted PKCS#8 key`);
    body.push(line);
  }
  if (label !== undefined) throw invalid(source, `the "${label}" block opened on line ${startLine} has no END line (file truncated?)`);
  return blocks;
}

function decodeBody(body: string[], source: string, label: string, startLine: number): Buffer {
  const joined = body.join('');
  if (joined.length === 0) throw invalid(source, `the "${label}" block on line ${startLine} is empty`);
  if (!BASE64_LINE.test(joined) || joined.length % 4 !== 0) {
    throw invalid(source, `the "${label}" block on line ${startLine} is not valid base64 (truncated or corrupted)`);
  }
  return Buffer.from(joined, 'base64');
}

function invalid(source: string, what: string): CertError {
  return new CertError('SI_CERT_INVALID', `${source}: ${what}`);
}

/** The DER of every `CERTIFICATE` block, in order; throws when there is none. */
export function decodeCertificates(text: string, source = 'certificate'): Buffer[] {
  const certs = decodePem(text, source)
    .filter((b) => b.label === 'CERTIFICATE')
    .map((b) => b.der);
  if (certs.length === 0) throw invalid(source, 'contains no "BEGIN CERTIFICATE" block');
  return certs;
}

/**
 * Lenient variant for data we do not own (a live caBundle): returns the certificate blocks it
 * can decode and counts what it skipped, never throws.
 */
export function decodeCertificatesLenient(text: string): { certs: Buffer[]; skipped: number } {
  try {
    const blocks = decodePem(text);
    const certs = blocks.filter((b) => b.label === 'CERTIFICATE').map((b) => b.der);
    const garbage = blocks.length === 0 && text.trim() !== '' ? 1 : 0;
    return { certs, skipped: blocks.length - certs.length + garbage };
  } catch {
    // One bad block poisons a strict decode; fall back to decoding block by block.
    const certs: Buffer[] = [];
    let skipped = 0;
    for (const m of text.matchAll(/-----BEGIN CERTIFICATE-----((?:(?!-----BEGIN)[\s\S])*?)-----END CERTIFICATE-----/g)) {
      try {
        certs.push(...decodeCertificates(`-----BEGIN CERTIFICATE-----${m[1]}-----END CERTIFICATE-----\n`));
      } catch {
        skipped++;
      }
    }
    return { certs, skipped: skipped + (certs.length === 0 && skipped === 0 && text.trim() !== '' ? 1 : 0) };
  }
}
