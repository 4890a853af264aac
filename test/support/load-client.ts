/**
 * @module test/support/load-client
 * A load generator in Node for the reliability drivers (soak, reload storm, slowloris) and the
 * benchmark's fallback when neither wrk nor h2load is installed: HTTPS keep-alive connections,
 * open loop at a fixed rate (requests are scheduled on a clock, and latency counts from the
 * scheduled time, so a stalled server cannot hide its stall by slowing the client down), or
 * closed loop (N workers back to back). Every answer is checked by the request's own `check`;
 * valid and hostile requests are counted apart, because only the valid ones must never fail.
 */
import { Agent, request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

type RequestKind = 'valid' | 'hostile';

export interface LoadRequest {
  kind: RequestKind;
  /** Groups counts in the summary (`F1`, `truncated-json`, ...). */
  label: string;
  method?: string;
  path: string;
  headers?: Record<string, string | number>;
  body?: Buffer | string;
  /** What is wrong with this answer, or undefined when it is the expected one. */
  check: (status: number, body: Buffer) => string | undefined;
  /** Send on a new connection of its own (a TLS handshake), not on the keep-alive pool. */
  fresh?: boolean;
}

export interface TlsTrust {
  /** Verify the server against this CA (PEM) for `servername`; without it nothing is verified. */
  ca?: string;
  servername?: string;
  /** A client certificate and key (PEM) to present (the apiserver's admin identity). */
  cert?: string | Buffer;
  key?: string | Buffer;
}

/** The TLS options of `trust` for a request or an agent. */
function tlsOptions(trust: TlsTrust): Record<string, unknown> {
  const client = trust.cert !== undefined && trust.key !== undefined ? { cert: trust.cert, key: trust.key } : {};
  return trust.ca !== undefined ? { ca: trust.ca, servername: trust.servername ?? 'localhost', ...client } : { rejectUnauthorized: false, ...client };
}

export interface LoadOptions extends TlsTrust {
  port: number;
  host?: string;
  /** Keep-alive connections (the agent's socket pool). */
  connections: number;
  durationMs: number;
  next: (i: number) => LoadRequest;
  timeoutMs?: number;
  /** Record the sha256 fingerprint of the certificate each answer came over. */
  capturePeer?: boolean;
  /** Called with every finished request (after it is counted). */
  onRecord?: (record: RequestRecord) => void;
  signal?: AbortSignal;
}

export interface RequestRecord {
  kind: RequestKind;
  label: string;
  /** From the scheduled start (open loop) or the send (closed loop) to the end of the body, ms. */
  latencyMs: number;
  status: number;
  /** undefined when the answer was the expected one. */
  problem?: string;
  peer?: string;
  endedAt: number;
}

export interface LabelCount {
  sent: number;
  ok: number;
  failed: number;
}

export interface LoadSummary {
  durationMs: number;
  sent: number;
  completed: number;
  /** Requests per second actually completed. */
  rate: number;
  byKind: Record<RequestKind, LabelCount>;
  byLabel: Record<string, LabelCount>;
  /** Latencies of the valid requests, ms, in completion order. */
  validLatencies: Float64Array;
  /** The first problems seen (at most 50), with their labels. */
  problems: string[];
  peers: Set<string>;
}

const MAX_PROBLEMS = 50;

class Recorder {
  readonly byKind: Record<RequestKind, LabelCount> = { valid: { sent: 0, ok: 0, failed: 0 }, hostile: { sent: 0, ok: 0, failed: 0 } };
  readonly byLabel: Record<string, LabelCount> = {};
  readonly problems: string[] = [];
  readonly peers = new Set<string>();
  private latencies = new Float64Array(4096);
  private n = 0;
  sent = 0;
  completed = 0;

  constructor(private readonly onRecord?: (r: RequestRecord) => void) {}

  started(req: LoadRequest): void {
    this.sent++;
    this.byKind[req.kind].sent++;
    (this.byLabel[req.label] ??= { sent: 0, ok: 0, failed: 0 }).sent++;
  }

  done(record: RequestRecord): void {
    this.completed++;
    const label = this.byLabel[record.label];
    if (record.problem === undefined) {
      this.byKind[record.kind].ok++;
      label.ok++;
    } else {
      this.byKind[record.kind].failed++;
      label.failed++;
      if (this.problems.length < MAX_PROBLEMS) this.problems.push(`${record.kind} ${record.label}: ${record.problem}`);
    }
    if (record.peer !== undefined) this.peers.add(record.peer);
    if (record.kind === 'valid') {
      if (this.n === this.latencies.length) {
        const bigger = new Float64Array(this.latencies.length * 2);
        bigger.set(this.latencies);
        this.latencies = bigger;
      }
      this.latencies[this.n++] = record.latencyMs;
    }
    this.onRecord?.(record);
  }

  summary(durationMs: number): LoadSummary {
    return {
      durationMs,
      sent: this.sent,
      completed: this.completed,
      rate: this.completed / (durationMs / 1000),
      byKind: this.byKind,
      byLabel: this.byLabel,
      validLatencies: this.latencies.slice(0, this.n),
      problems: this.problems,
      peers: this.peers,
    };
  }
}

export function makeAgent(connections: number, trust: TlsTrust): Agent {
  return new Agent({
    keepAlive: true,
    maxSockets: connections,
    maxFreeSockets: connections,
    ...tlsOptions(trust),
  });
}

/** Send one request; resolves (never rejects) with its record. */
export function sendOne(
  agent: Agent,
  options: Pick<LoadOptions, 'port' | 'host' | 'timeoutMs' | 'capturePeer'> & TlsTrust,
  req: LoadRequest,
  t0: number,
): Promise<RequestRecord> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (status: number, problem: string | undefined, peer?: string): void => {
      if (settled) return;
      settled = true;
      const endedAt = performance.now();
      resolve({ kind: req.kind, label: req.label, latencyMs: endedAt - t0, status, problem, peer, endedAt });
    };
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== undefined && headers['Content-Length'] === undefined && headers['Transfer-Encoding'] === undefined) {
      headers['Content-Length'] = Buffer.byteLength(req.body);
    }
    const r = request(
      {
        agent: req.fresh ? false : agent,
        host: options.host ?? '127.0.0.1',
        port: options.port,
        method: req.method ?? 'POST',
        path: req.path,
        headers,
        ...tlsOptions(options),
      },
      (res: IncomingMessage) => {
        // Read now: at 'end' a kept-alive socket is already back in the agent (res.socket null).
        const peer = options.capturePeer ? (res.socket as TLSSocket | null)?.getPeerCertificate?.()?.fingerprint256 : undefined;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => finish(res.statusCode ?? 0, `response error: ${err.message}`));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          let problem: string | undefined;
          try {
            problem = req.check(status, Buffer.concat(chunks));
          } catch (err) {
            problem = `check threw: ${(err as Error).message}`;
          }
          finish(status, problem, peer);
        });
      },
    );
    r.setTimeout(options.timeoutMs ?? 10_000, () => r.destroy(new Error(`no answer within ${options.timeoutMs ?? 10_000} ms`)));
    r.on('error', (err: NodeJS.ErrnoException) => {
      // The request's own check decides whether a cut connection is its documented answer
      // (an oversize body may be cut while it is still being sent); status 0 stands for it.
      let accepted = false;
      try {
        accepted = req.check(0, Buffer.alloc(0)) === undefined;
      } catch {
        accepted = false;
      }
      finish(0, accepted ? undefined : `request error: ${err.code ?? ''} ${err.message}`.trim());
    });
    r.end(req.body);
  });
}

/**
 * Open loop: request i is due at start + i / rate. Each tick sends everything due (catching up
 * after a stall), the agent queues what finds no free connection, and the latency of a request
 * includes that wait.
 */
export async function runFixedRate(options: LoadOptions & { rate: number }): Promise<LoadSummary> {
  const agent = makeAgent(options.connections, options);
  const rec = new Recorder(options.onRecord);
  const start = performance.now();
  const end = start + options.durationMs;
  const pending = new Set<Promise<void>>();
  let i = 0;
  let stoppedAt = end;
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const now = performance.now();
      const stop = now >= end || options.signal?.aborted === true;
      const dueUntil = Math.min(now, end);
      while (start + (i * 1000) / options.rate <= dueUntil) {
        const scheduled = start + (i * 1000) / options.rate;
        const req = options.next(i++);
        rec.started(req);
        const p = sendOne(agent, options, req, scheduled).then((r) => {
          rec.done(r);
          pending.delete(p);
        });
        pending.add(p);
      }
      if (stop) {
        stoppedAt = Math.min(now, end);
        clearInterval(timer);
        resolve();
      }
    };
    const timer = setInterval(tick, 1);
    tick();
  });
  // Let what was sent finish (bounded by the request timeout).
  await Promise.all(pending);
  agent.destroy();
  return rec.summary(stoppedAt - start);
}

/** Closed loop: `connections` workers, each sending its next request as soon as the last one ended. */
export async function runClosedLoop(options: LoadOptions): Promise<LoadSummary> {
  const agent = makeAgent(options.connections, options);
  const rec = new Recorder(options.onRecord);
  const start = performance.now();
  const end = start + options.durationMs;
  let i = 0;
  await Promise.all(
    Array.from({ length: options.connections }, async () => {
      while (performance.now() < end && options.signal?.aborted !== true) {
        const req = options.next(i++);
        rec.started(req);
        rec.done(await sendOne(agent, options, req, performance.now()));
      }
    }),
  );
  const durationMs = performance.now() - start;
  agent.destroy();
  return rec.summary(durationMs);
}

/** Percentile (0-100) of unsorted values by nearest rank; NaN when empty. */
export function percentile(values: ArrayLike<number>, p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values as ArrayLike<number>).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export function percentiles(values: ArrayLike<number>, ps: readonly number[] = [50, 90, 99, 99.9]): Record<string, number> {
  if (values.length === 0) return Object.fromEntries(ps.map((p) => [`p${p}`, Number.NaN]));
  const sorted = Float64Array.from(values as ArrayLike<number>).sort();
  const out: Record<string, number> = {};
  for (const p of ps) out[`p${p}`] = sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
  out.max = sorted[sorted.length - 1];
  return out;
}
