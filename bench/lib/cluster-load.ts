/**
 * @module bench/lib/cluster-load
 * The load and the readings of the pod-create benchmark: pod creates through the real
 * kube-apiserver at a fixed rate (open loop, over keep-alive HTTPS with the admin certificate;
 * latency counts from the scheduled time), the apiserver's webhook histogram from its own
 * `/metrics`, and the TCP connections each webhook server holds (from /proc/net/tcp), to see
 * whether the apiserver reuses them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { runFixedRate, type RequestRecord } from '../../test/support/load-client.js';
import type { ApiTrust } from './cluster-setup.js';
import { histograms, type Histogram } from './prom.js';

/** One create as the client saw it. */
export interface CreateRecord {
  latencyMs: number;
  /** What was wrong (status, injection state), or undefined. */
  problem?: string;
}

/**
 * Create `count` copies of `pod` in `namespace` at `rate` per second. `check` looks at each
 * created pod (e.g. whether it got the sidecar) and says what is wrong with it.
 */
export async function createPods(
  trust: ApiTrust,
  namespace: string,
  pod: object,
  rate: number,
  count: number,
  check: (created: Record<string, unknown>) => string | undefined,
): Promise<CreateRecord[]> {
  const body = Buffer.from(JSON.stringify(pod));
  const out: CreateRecord[] = [];
  await runFixedRate({
    host: trust.host,
    port: trust.port,
    ca: trust.ca,
    servername: 'localhost',
    cert: trust.cert,
    key: trust.key,
    // Enough for every create in flight at 200/s even when one takes 100 ms.
    connections: 32,
    rate,
    // Request i is due at i / rate: count requests fit in (count - 0.5) / rate.
    durationMs: ((count - 0.5) * 1000) / rate,
    timeoutMs: 30_000,
    next: () => ({
      kind: 'valid',
      label: 'create',
      path: `/api/v1/namespaces/${namespace}/pods`,
      headers: { 'Content-Type': 'application/json' },
      body,
      check: (status, answer) => {
        if (status !== 201) return `HTTP ${status}: ${answer.toString('utf8').slice(0, 300)}`;
        return check(JSON.parse(answer.toString('utf8')) as Record<string, unknown>);
      },
    }),
    onRecord: (r: RequestRecord) => out.push({ latencyMs: r.latencyMs, problem: r.problem }),
  });
  return out;
}

/** GET a path of the apiserver as the admin. */
function apiGet(trust: ApiTrust, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = request(
      { host: trust.host, port: trust.port, path, ca: trust.ca, cert: trust.cert, key: trust.key, servername: 'localhost', agent: false, timeout: 30_000 },
      (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (c: string) => (text += c))
          .on('end', () => {
            if (res.statusCode !== 200) reject(new Error(`GET ${path}: HTTP ${res.statusCode}: ${text.slice(0, 200)}`));
            else resolve(text);
          });
      },
    );
    r.on('timeout', () => r.destroy(new Error(`GET ${path}: timeout`)));
    r.on('error', reject);
    r.end();
  });
}

const APISERVER_WEBHOOK_METRIC = 'apiserver_admission_webhook_admission_duration_seconds';

/** The apiserver's admission time per webhook name (its histogram, summed over operation, type and rejected). */
export async function webhookHistograms(trust: ApiTrust): Promise<Map<string, Histogram>> {
  return histograms(await apiGet(trust, '/metrics'), APISERVER_WEBHOOK_METRIC, 'name');
}

/** Local port -> remote ports of its established loopback connections, from /proc/net/tcp and tcp6. */
function establishedPeers(ports: ReadonlySet<number>): Map<number, Set<number>> {
  const out = new Map<number, Set<number>>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address rem_address st: "0100007F:1F90 0100007F:C350 01" (01 = ESTABLISHED)
      if (f.length < 4 || f[3] !== '01') continue;
      const local = parseInt(f[1].split(':')[1] ?? '', 16);
      if (!ports.has(local)) continue;
      const remote = parseInt(f[2].split(':')[1] ?? '', 16);
      let set = out.get(local);
      if (set === undefined) out.set(local, (set = new Set()));
      set.add(remote);
    }
  }
  return out;
}

/** Connections seen per server port while it runs: distinct ones and the most at once. */
export interface ConnectionCount {
  distinct: number;
  maxOpen: number;
}

/** Sample the servers' connections every `everyMs` until `stop()` is called. */
export function sampleConnections(ports: ReadonlySet<number>, everyMs = 100): { stop(): Map<number, ConnectionCount> } {
  const seen = new Map<number, Set<number>>();
  const maxOpen = new Map<number, number>();
  const sample = (): void => {
    for (const [port, peers] of establishedPeers(ports)) {
      let s = seen.get(port);
      if (s === undefined) seen.set(port, (s = new Set()));
      for (const p of peers) s.add(p);
      maxOpen.set(port, Math.max(maxOpen.get(port) ?? 0, peers.size));
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      const out = new Map<number, ConnectionCount>();
      for (const port of ports) out.set(port, { distinct: seen.get(port)?.size ?? 0, maxOpen: maxOpen.get(port) ?? 0 });
      return out;
    },
  };
}

/** Time a process's threads spent on a CPU and waiting for one, ns (Linux schedstat; zeros elsewhere). */
export interface ThreadTimes {
  cpuNs: number;
  waitNs: number;
}

export function threadTimes(pid: number | undefined): ThreadTimes {
  const out = { cpuNs: 0, waitNs: 0 };
  if (pid === undefined) return out;
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tasks) {
    try {
      const [run, wait] = readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ');
      out.cpuNs += Number(run);
      out.waitNs += Number(wait);
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return out;
}
