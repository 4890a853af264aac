/**
 * @module admission/request-params
 * What the apiserver puts in the URL: `?timeout=10s` (a Go duration: the budget the apiserver
 * will wait) and, Istio-style, key/value pairs after `/inject/` (`/inject/cluster/c1/net/n1`).
 * Parsed by hand (no `new URL` per request); results for paths are cached because a webhook
 * configuration sends the same few paths forever.
 */
import { parseDuration } from '../util/duration.js';

/** Go's `time.ParseDuration` (util/duration) for non-negative values, in ms; undefined when malformed. */
export function parseGoDuration(text: string): number | undefined {
  if (text.length === 0 || text.length > 64) return undefined;
  const d = parseDuration(text);
  return d.ok && d.nanos >= 0n ? Number(d.nanos) / 1e6 : undefined;
}

/** The raw value of `name` in a query string (no `?`), undefined when absent. */
export function queryValue(query: string, name: string): string | undefined {
  if (query.length === 0) return undefined;
  for (const part of query.split('&')) {
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    if (key === name) {
      const raw = eq < 0 ? '' : part.slice(eq + 1);
      try {
        return decodeURIComponent(raw.replace(/\+/g, ' '));
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export interface DeadlinePolicy {
  /** The most time the webhook gives itself, whatever the apiserver allows (ms). */
  capMs: number;
  /** Kept back from the apiserver's `?timeout` for the network and the apiserver itself (ms). */
  marginMs: number;
}

export const DEFAULT_DEADLINE: DeadlinePolicy = { capMs: 2500, marginMs: 500 };

// The apiserver sends the same `timeout=10s` on every call: remember the last answer.
let lastQuery: string | undefined;
let lastPolicy: DeadlinePolicy | undefined;
let lastBudget = 0;

/** Milliseconds the webhook may spend on one request: min(cap, timeout - margin). */
export function budgetMs(query: string, policy: DeadlinePolicy = DEFAULT_DEADLINE): number {
  if (query === lastQuery && policy === lastPolicy) return lastBudget;
  lastBudget = computeBudget(query, policy);
  lastQuery = query;
  lastPolicy = policy;
  return lastBudget;
}

function computeBudget(query: string, policy: DeadlinePolicy): number {
  const raw = queryValue(query, 'timeout');
  const timeout = raw === undefined ? undefined : parseGoDuration(raw);
  if (timeout === undefined || timeout <= 0) return policy.capMs;
  // A tiny timeout still leaves half of itself rather than nothing.
  const usable = timeout > 2 * policy.marginMs ? timeout - policy.marginMs : timeout / 2;
  return Math.min(policy.capMs, usable);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Key/value pairs after `/inject/`, as Istio reads them: `/inject/k1/v1/k2/v2` (values may
 * spell `/` as `--slash--`), or the legacy `/inject/:ENV:k1=v1:ENV:k2=v2`. An odd trailing key
 * is ignored. Keys are returned as written; the core decides what they mean.
 */
export function parsePathParams(path: string): Record<string, string> | undefined {
  const rest = path.startsWith('/inject/') ? path.slice('/inject/'.length).replace(/\/+$/, '') : '';
  if (rest.length === 0) return undefined;
  // Null prototype: a key named __proto__ or constructor stays an ordinary entry.
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  let count = 0;
  if (rest.startsWith(':ENV:')) {
    for (const pair of rest.split(':ENV:').slice(1)) {
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      out[decodeSegment(pair.slice(0, eq))] = decodeSegment(pair.slice(eq + 1));
      count++;
    }
  } else {
    const parts = rest.split('/');
    for (let i = 0; i + 1 < parts.length; i += 2) {
      out[decodeSegment(parts[i])] = decodeSegment(parts[i + 1]).replaceAll('--slash--', '/');
      count++;
    }
  }
  return count === 0 ? undefined : out;
}

const PATH_CACHE_LIMIT = 64;
const pathCache = new Map<string, Readonly<Record<string, string>> | undefined>();

/**
 * `parsePathParams` with a small bounded cache (paths come from webhook configurations). Each
 * call gets its own copy so nothing a request does can leak into the next one.
 */
export function pathParamsFor(path: string): Record<string, string> | undefined {
  if (path === '/inject' || path === '/inject/') return undefined;
  let parsed = pathCache.get(path);
  if (parsed === undefined && !pathCache.has(path)) {
    parsed = parsePathParams(path);
    if (pathCache.size >= PATH_CACHE_LIMIT) pathCache.clear();
    pathCache.set(path, parsed);
  }
  return parsed === undefined ? undefined : (Object.assign(Object.create(null), parsed) as Record<string, string>);
}
