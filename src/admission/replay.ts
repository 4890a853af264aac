/**
 * @module admission/replay
 * A cached answer that a repeated pod gets without its review being parsed: the answer's text
 * cut around the uid (the response's first member, so the cut is at a fixed place), with what the
 * hit counts and logs. result-cache.ts finds the uid in the raw bytes and decides when replaying
 * is sound; this file only builds and splices the text. A uid that is replayed is printable ASCII
 * without `"` or `\`, so its JSON form is its bytes between quotes and the splice is exactly the
 * answer the full path would serialise.
 */
import type { Logger } from '../telemetry/log.js';
import type { AdmissionVersion } from './types.js';

export interface Replay {
  /** The answer's text up to the uid's first character, and from the quote after it. */
  readonly head: string;
  readonly tail: string;
  readonly outcome: 'injected' | 'skipped';
  /** The skip or injection reason (metrics and the log line). */
  readonly reason: string;
  readonly patchOps: number | undefined;
  /** The info line's fields every replica shares (namespace, pod, kind, ...). */
  readonly line: Readonly<Record<string, unknown>>;
  /** A pino child with `line` serialised once, made at the first replay (most misses never repeat). */
  logger?: Logger;
  /** The logger `logger` is a child of (a cache shared by two handlers keeps each one's lines apart). */
  loggerOf?: Logger;
}

/** Cut a full-path answer around its uid; undefined when it is not laid out as expected. */
export function makeReplay(
  body: string,
  version: AdmissionVersion,
  uid: string,
  fields: { outcome: 'injected' | 'skipped'; reason: string; patchOps?: number; line: Record<string, unknown> },
): Replay | undefined {
  const head = `{"apiVersion":${JSON.stringify(version)},"kind":"AdmissionReview","response":{"uid":"`;
  const end = head.length + uid.length;
  if (!body.startsWith(head) || body.slice(head.length, end) !== uid || body[end] !== '"') return undefined;
  return { head, tail: body.slice(end), outcome: fields.outcome, reason: fields.reason, patchOps: fields.patchOps, line: fields.line };
}

/** The answer for another uid (printable ASCII without `"` or `\`: its JSON form is itself). */
export function replayBody(replay: Replay, uid: string): string {
  return replay.head + uid + replay.tail;
}
