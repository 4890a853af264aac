/**
 * @module admission/http
 * The HTTP hygiene in front of the admission handler: content type, a body cap enforced while
 * reading (a chunked stream that never ends is cut off, never buffered), and answers for
 * requests that are refused before their body was read. Bodies of refused requests are drained
 * for a while rather than left unread, because closing a socket with unread input makes TCP
 * send a reset that can destroy the error response before the client reads it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorInfo } from '../errors.js';
import { serializeStatus } from './responses.js';

/** controller-runtime's limit: an AdmissionReview holds `object` and `oldObject` (apiserver cap 3 MiB each). */
export const DEFAULT_BODY_LIMIT = 7 * 1024 * 1024;
/** How much of a refused body is read and thrown away before the connection is cut. */
export const DEFAULT_DISCARD_LIMIT = 8 * 1024 * 1024;

/** `application/json`, optionally with parameters (`; charset=utf-8`); media types are case-insensitive. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const semi = header.indexOf(';');
  const media = (semi < 0 ? header : header.slice(0, semi)).trim().toLowerCase();
  return media === 'application/json';
}

export type BodyResult =
  | { ok: true; body: Buffer; release: () => void }
  | { ok: false; status: 413 | 400 | 503; message: string }
  | { ok: false; status: 0; message: string };

/** Default for all request bodies buffered at once: 60 slow 7 MB bodies took 484 MB (limit 512 Mi). */
export const DEFAULT_BODY_BUDGET = 64 * 1024 * 1024;

/** Declared bodies from this size on are gathered in one buffer (readBody). */
const CONTIGUOUS_FROM = 256 * 1024;

/**
 * The bytes of request bodies held in memory at once, over all connections. Each body reserves
 * what it buffers (its declared Content-Length up front, or chunk by chunk) and gives it back when
 * its request is answered or its client goes away, so memory held by slow or abandoned bodies is
 * bounded and comes back; past the budget a request is answered 503 at once, unbuffered.
 */
export class BodyBudget {
  #used = 0;

  constructor(readonly limit: number) {}

  get used(): number {
    return this.#used;
  }

  take(bytes: number): boolean {
    if (this.#used + bytes > this.limit) return false;
    this.#used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes);
  }
}

/**
 * Read the whole body, at most `limit` bytes. `done` is called exactly once: with the body (and
 * `release`, to call once it is no longer needed), with a 413 as soon as the cap is crossed (or
 * announced by Content-Length), with a 503 when `budget` has no room for it, or with status 0
 * when the client went away (nothing to answer). After a 413 or 503 the rest is discarded up to
 * `discardLimit`, then the connection is destroyed.
 */
export function readBody(req: IncomingMessage, limit: number, discardLimit: number, done: (result: BodyResult) => void, budget?: BodyBudget): void {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    discardBody(req, discardLimit);
    done({ ok: false, status: 413, message: `request body is ${declared} bytes; the limit is ${limit}` });
    return;
  }
  // Reserved from the budget for this body; given back exactly once.
  let reserved = 0;
  const giveBack = (): void => {
    budget?.give(reserved);
    reserved = 0;
  };
  const overBudget = (): void => {
    discardBody(req, discardLimit);
    done({ ok: false, status: 503, message: `the webhook is holding ${budget!.limit} bytes of request bodies already; retry shortly` });
  };
  const upfront = declared !== undefined ? Number(declared) : 0;
  if (budget !== undefined && upfront > 0) {
    if (!budget.take(upfront)) {
      overBudget();
      return;
    }
    reserved = upfront;
  }
  // A large declared body is gathered in one buffer of its size as it arrives: one block that
  // goes back to the system when freed, instead of thousands of socket-sized chunks scattered
  // through the heap, which a flood leaves behind as fragmentation (RSS that never comes down).
  // The copy replaces the concatenation at the end, so it costs nothing extra.
  let whole = upfront >= CONTIGUOUS_FROM && upfront <= limit ? Buffer.allocUnsafeSlow(upfront) : undefined;
  let chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  const drop = (): void => {
    chunks = [];
    whole = undefined;
  };
  const onData = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > limit) {
      settled = true;
      drop();
      giveBack();
      req.removeListener('data', onData);
      discardBody(req, discardLimit);
      done({ ok: false, status: 413, message: `request body is over the limit of ${limit} bytes` });
      return;
    }
    if (budget !== undefined && size > reserved) {
      if (!budget.take(size - reserved)) {
        settled = true;
        drop();
        giveBack();
        req.removeListener('data', onData);
        overBudget();
        return;
      }
      reserved = size;
    }
    if (whole !== undefined && size <= whole.length) {
      chunk.copy(whole, size - chunk.length);
    } else {
      // Only without a Content-Length does more arrive than declared (the parser stops there).
      if (whole !== undefined) chunks = [whole.subarray(0, size - chunk.length)];
      whole = undefined;
      chunks.push(chunk);
    }
  };
  req.on('data', onData);
  req.once('end', () => {
    if (settled) return;
    settled = true;
    const body = whole !== undefined ? whole.subarray(0, size) : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
    done({ ok: true, body, release: giveBack });
  });
  const gone = (): void => {
    if (settled) return;
    settled = true;
    drop();
    giveBack();
    done({ ok: false, status: 0, message: 'client went away while sending the body' });
  };
  req.once('error', gone);
  req.once('close', gone);
}

/** Read and drop the rest of a refused body; cut the connection once `limit` more bytes came. */
export function discardBody(req: IncomingMessage, limit: number): void {
  if (req.complete) return;
  let seen = 0;
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > limit) req.socket.destroy();
  });
  req.on('error', () => undefined);
  req.resume();
}

/** Write a complete response; `close` asks the client to open a new connection next time. */
export function send(res: ServerResponse, status: number, contentType: string, body: string, close: boolean, extra?: Record<string, string>): void {
  if (res.headersSent || res.destroyed) return;
  const headers: Record<string, string | number> = {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
  };
  if (close) headers.Connection = 'close';
  if (extra !== undefined) Object.assign(headers, extra);
  res.writeHead(status, headers);
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

export function sendStatus(res: ServerResponse, status: number, reason: string, message: string, close: boolean, extra?: Record<string, string>): void {
  send(res, status, 'application/json', serializeStatus(status, reason, message), close, extra);
}

/** The HTTP refusals before a request reaches the handler, each a code of the catalogue. */
export type RefusalCode = 'SI_ADMISSION_METHOD' | 'SI_ADMISSION_NOT_FOUND' | 'SI_ADMISSION_CONTENT_TYPE' | 'SI_ADMISSION_BODY_TOO_LARGE';

const REFUSAL_REASON: Record<RefusalCode, string> = {
  SI_ADMISSION_METHOD: 'MethodNotAllowed',
  SI_ADMISSION_NOT_FOUND: 'NotFound',
  SI_ADMISSION_CONTENT_TYPE: 'UnsupportedMediaType',
  SI_ADMISSION_BODY_TOO_LARGE: 'RequestEntityTooLarge',
};

/**
 * Refuse with a catalogue code: its HTTP status, Kubernetes' reason for that status, and the
 * code at the end of the message (what a user searches the docs or logs for). Returns the status.
 */
export function sendRefusal(res: ServerResponse, code: RefusalCode, message: string, close: boolean, extra?: Record<string, string>): number {
  const status = errorInfo(code).httpStatus;
  sendStatus(res, status, REFUSAL_REASON[code], `${message} (${code})`, close, extra);
  return status;
}
