/**
 * @module inject/status-mac
 * Authenticity of the status annotation. Strip and undo act on what the status lists: remove
 * these containers, put these values back. A pod author writes the pod's annotations, so a
 * status the webhook would believe blindly is a way to make it remove another webhook's
 * container or write `privileged: true` into a patch. The webhook therefore signs what it
 * writes (HMAC-SHA256 with a key only the injector holds) and trusts a status only when the
 * signature checks out; any other status is foreign and is never used to remove or change
 * anything (see strip.ts).
 *
 * Why a MAC and not "trust only what the current templates can produce": the status must stay
 * usable across config changes (a new template version, even other template names, must still
 * replace the old sidecar), which a check against the current templates cannot allow without
 * letting a forged status name the same things. A MAC proves authorship, whatever the config.
 *
 * Format: the signature is the last member of the JSON object, `,"mac":"<22 base64url>"}`: the
 * first 128 bits of the HMAC (truncation to half the output, as RFC 2104 allows; issue 37 made
 * the status small, since the apiserver decodes it with every pod), over the text before it
 * (closed with `}`) and the namespace, so a status copied to a pod in another namespace is
 * foreign there. Statuses written before carry the whole HMAC as 64 hex digits, and still verify.
 * Readers that don't know `mac` (Istio's tools, older injectors) ignore it. The CLI has no key: it neither signs nor checks (it rewrites its user's own files,
 * which is no privilege boundary), so `uninject` keeps working on any of our output.
 */
import { createHmac, createPrivateKey, hkdfSync, timingSafeEqual } from 'node:crypto';

/** Keys for signing (the first) and verifying (all of them: the current and recent ones). */
export interface StatusKeyring {
  readonly keys: readonly Buffer[];
}

/** 22 base64url characters (128 bits, written now) or 64 hex digits (256 bits, written before issue 37). */
const MAC_SUFFIX = /,"mac":"([A-Za-z0-9_-]{22}|[0-9a-f]{64})"\}$/;
const MAC_BYTES = 16;
const DOMAIN = 'sidecar-injector status v1';

function mac(key: Buffer, namespace: string, body: string): Buffer {
  return createHmac('sha256', key).update(`${DOMAIN}\n${namespace}\n`).update(body).digest();
}

/** `text` (a JSON object as formatStatus writes it) with the signature appended. */
export function signStatus(text: string, namespace: string, ring: StatusKeyring): string {
  if (ring.keys.length === 0 || !text.endsWith('}')) return text;
  return `${text.slice(0, -1)},"mac":"${mac(ring.keys[0], namespace, text).subarray(0, MAC_BYTES).toString('base64url')}"}`;
}

/** Whether `text` carries a signature by one of the ring's keys for this namespace. */
export function verifyStatus(text: string, namespace: string, ring: StatusKeyring): boolean {
  const m = MAC_SUFFIX.exec(text);
  if (m === null) return false;
  const body = `${text.slice(0, m.index)}}`;
  const whole = m[1].length === 64;
  const given = Buffer.from(m[1], whole ? 'hex' : 'base64url');
  // Every key is tried (no early exit), each comparison in constant time.
  let ok = false;
  for (const key of ring.keys) {
    const full = mac(key, namespace, body);
    ok = timingSafeEqual(whole ? full : full.subarray(0, MAC_BYTES), given) || ok;
  }
  return ok;
}

/**
 * A status key derived from the serving certificate's private key: every replica mounts the same
 * TLS Secret, so they share it with no extra Secret to install, and it rotates with the
 * certificate. HKDF with its own label, so the signature reveals nothing about the TLS key.
 */
export function statusKeyFromTlsKey(keyPem: string): Buffer {
  const der = createPrivateKey(keyPem).export({ type: 'pkcs8', format: 'der' });
  return Buffer.from(hkdfSync('sha256', der, Buffer.alloc(0), DOMAIN, 32));
}

/** How many earlier keys still verify after a rotation (statuses written shortly before it). */
export const STATUS_KEYS_KEPT = 4;

/** The keys of a running webhook: `rotate` adds a new signing key, recent ones still verify. */
export class StatusKeys implements StatusKeyring {
  #keys: Buffer[] = [];

  get keys(): readonly Buffer[] {
    return this.#keys;
  }

  rotate(key: Buffer): void {
    if (this.#keys.length > 0 && this.#keys[0].equals(key)) return;
    // A new array each time: a request that read `keys` keeps a consistent list.
    this.#keys = [key, ...this.#keys.filter((k) => !k.equals(key))].slice(0, 1 + STATUS_KEYS_KEPT);
  }
}
