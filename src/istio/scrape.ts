/**
 * @module istio/scrape
 * Istio's metrics-merge scrape targets (pilot-agent status.ParseScrapeTargets) and the port
 * checks its webhook makes before moving the app's scrape settings into the proxy
 * (applyPrometheusMerge): a port that is not 1-65535, is the agent's own, or is one of the
 * proxy's reserved ports fails the injection, naming the port and why.
 */
import { InjectionError } from '../errors.js';

export interface ScrapeTarget {
  port: string;
  path: string;
}

/** Istio's istioReservedPorts: ports the proxy owns, never app metrics. */
const RESERVED: Readonly<Record<string, string>> = {
  '15000': 'Envoy admin',
  '15001': 'outbound traffic capture',
  '15004': 'pilot debug',
  '15006': 'inbound traffic capture',
  '15008': 'HBONE tunnel',
  '15020': 'pilot-agent status / merged Prometheus',
  '15021': 'Envoy health',
  '15053': 'DNS proxy',
  '15090': 'Envoy Prometheus (already merged)',
};

/** "8080:/metrics, 9100" -> targets (path defaults to /metrics); undefined when an entry has no port (Istio ignores the annotation then). */
export function parseScrapeTargets(raw: string): ScrapeTarget[] | undefined {
  const out: ScrapeTarget[] = [];
  for (const item of raw.split(',')) {
    const entry = item.trim();
    if (entry === '') continue;
    const colon = entry.indexOf(':');
    const port = (colon < 0 ? entry : entry.slice(0, colon)).trim();
    if (port === '') return undefined;
    const path = colon < 0 ? '' : entry.slice(colon + 1).trim();
    out.push({ port, path: path === '' ? '/metrics' : path });
  }
  return out;
}

/** Go's strconv.Atoi for a port, then the range, agent-port and reserved-port checks. */
function portProblem(port: string, agentPort: string): string | undefined {
  const n = /^[+-]?\d{1,18}$/.test(port) ? Number(port) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > 65535) return 'invalid';
  const canon = String(n);
  if (canon === agentPort) return 'conflicts with agent port';
  const reason = RESERVED[canon];
  return reason === undefined ? undefined : `is reserved for Istio (${reason}) and cannot be scraped`;
}

/** Throws SI_INJECT_ANNOTATION as Istio refuses the pod; `targets` win over `prometheus.io/port`. */
export function checkScrapePorts(targets: readonly ScrapeTarget[], port: string | undefined, agentPort: string): void {
  const fail = (what: string, annotation: string, p: string, problem: string) => {
    const message =
      problem === 'invalid'
        ? `${what}: invalid ${annotation === 'prometheus.io/port' ? 'port' : 'target port'} "${p}"`
        : `${what}: ${annotation === 'prometheus.io/port' ? 'port' : 'target port'} ${p} ${problem}`;
    throw new InjectionError('SI_INJECT_ANNOTATION', `${message} (annotation ${annotation})`, { details: { annotations: [annotation] } });
  };
  if (targets.length > 0) {
    for (const t of targets) {
      const p = portProblem(t.port, agentPort);
      if (p !== undefined) fail('invalid prometheus scrape targets', 'prometheus.istio.io/scrape-targets', t.port, p);
    }
  } else if (port !== undefined && port !== '') {
    const p = portProblem(port, agentPort);
    if (p !== undefined) fail('invalid prometheus scrape configuration', 'prometheus.io/port', port, p);
  }
}
