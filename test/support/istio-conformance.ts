/**
 * @module test/support/istio-conformance
 * Runs Istio's injection test inputs (../shared/conformance/istio/inject, read at run time)
 * through `injectPod` with Istio's chart config and compares with Istio's goldens, document by
 * document, pod template by pod template:
 *
 * - status: Istio injected a template when its golden differs from the input (after the
 *   normalisation below); we must inject exactly those, skip the others, and fail on the
 *   `traffic-annotations-bad-*` inputs naming the bad annotation (what TestInjection checks);
 * - semantics (measured, not gated): our injected template against the golden's, as JSON after
 *   normalising what Go's typed round trip changes (canonical quantities, omitted zero/empty
 *   fields, nulls), ignoring the status annotation, as Istio's webhook leg compares.
 *
 * Each case's settings follow Istio's TestInjection (flags, IstioOperator overlays, mesh
 * changes, native sidecars off for `*-old-version`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { LoadedConfig } from '../../src/config/types.js';
import { InjectorError } from '../../src/errors.js';
import { injectPod } from '../../src/inject/index.js';
import type { InjectionContext } from '../../src/inject/types.js';
import { podTemplates, type PodTemplateRef } from '../../src/manifest-io/index.js';
import { deepEqual, isPlainObject, type JsonObject, type JsonValue } from '../../src/util/json.js';
import { canonicalQuantity } from '../../src/istio/quantity.js';
import { istioChartConfig, ISTIO_INJECT_DIR, type IstioChartOptions } from './istio-chart.js';

export interface IstioCase {
  /** Input file. */
  in: string;
  /** Golden file. */
  want: string;
  options: IstioChartOptions;
  /** Expected error substring (lower case), for the bad-annotation cases. */
  expectedError?: string;
}

const HOLD = ['values.global.proxy.holdApplicationUntilProxyStarts=true'];
const CNI = ['components.cni.enabled=true'];
const MULTUS = ['components.cni.enabled=true', 'values.cni.provider=multus'];
const STATUS = [
  'values.global.proxy.statusPort=123',
  'values.global.proxy.readinessInitialDelaySeconds=100',
  'values.global.proxy.readinessPeriodSeconds=200',
  'values.global.proxy.readinessFailureThreshold=300',
];
const TPROXY = { defaultConfig: { interceptionMode: 'TPROXY' } };

/** The explicit cases of Istio's TestInjection (others use defaults). */
const EXPLICIT: IstioCase[] = [
  { in: 'hello.yaml', want: 'hello.yaml.cni.injected', options: { setFlags: [...CNI, 'values.cni.provider=default', 'values.global.network=network1'] } },
  { in: 'hello.yaml', want: 'hello.yaml.proxyImageName.injected', options: { setFlags: ['values.global.proxy.image=proxyTest'] } },
  { in: 'hello.yaml', want: 'hello.yaml.proxyInitImageName.injected', options: { setFlags: ['values.global.proxy_init.image=proxyInitTest'] } },
  { in: 'hello.yaml', want: 'hello-tproxy.yaml.injected', options: { mesh: TPROXY } },
  { in: 'hello.yaml', want: 'hello-always.yaml.injected', options: { setFlags: ['values.global.imagePullPolicy=Always'] } },
  { in: 'hello.yaml', want: 'hello-never.yaml.injected', options: { setFlags: ['values.global.imagePullPolicy=Never'] } },
  { in: 'format-duration.yaml', want: 'format-duration.yaml.injected', options: { mesh: { defaultConfig: { drainDuration: '23s' } } } },
  {
    in: 'traffic-params.yaml',
    want: 'traffic-params.yaml.injected',
    options: {
      setFlags: [
        'values.global.proxy.includeIPRanges=127.0.0.1/24,10.96.0.1/24',
        'values.global.proxy.excludeIPRanges=10.96.0.2/24,10.96.0.3/24',
        'values.global.proxy.excludeInboundPorts=4,5,6',
        'values.global.proxy.statusPort=0',
      ],
    },
  },
  { in: 'status_params.yaml', want: 'status_params.yaml.injected', options: { setFlags: STATUS } },
  { in: 'kubevirtInterfaces.yaml', want: 'kubevirtInterfaces.yaml.injected', options: { setFlags: STATUS } },
  { in: 'reroute-virtual-interfaces.yaml', want: 'reroute-virtual-interfaces.yaml.injected', options: { setFlags: STATUS } },
  { in: 'hello.yaml', want: 'hello-image-secrets-in-values.yaml.injected', options: { iopFile: 'hello-image-secrets-in-values.iop.yaml' } },
  { in: 'hello-image-pull-secret.yaml', want: 'hello-multiple-image-secrets.yaml.injected', options: { iopFile: 'hello-image-secrets-in-values.iop.yaml' } },
  { in: 'hello.yaml', want: 'hello-template-in-values.yaml.injected', options: { iopFile: 'hello-template-in-values.iop.yaml' } },
  { in: 'hello.yaml', want: 'hello-mount-mtls-certs.yaml.injected', options: { setFlags: ['values.global.mountMtlsCerts=true'] } },
  { in: 'hello.yaml', want: 'hello-cncf-networks.yaml.injected', options: { setFlags: MULTUS } },
  { in: 'hello-existing-cncf-networks.yaml', want: 'hello-existing-cncf-networks.yaml.injected', options: { setFlags: MULTUS } },
  { in: 'hello-existing-cncf-networks-json.yaml', want: 'hello-existing-cncf-networks-json.yaml.injected', options: { setFlags: MULTUS } },
  { in: 'hello.yaml', want: 'hello.proxyHoldsApplication.yaml.injected', options: { setFlags: HOLD } },
  { in: 'hello-probes.yaml', want: 'hello-probes.proxyHoldsApplication.yaml.injected', options: { setFlags: HOLD } },
  {
    in: 'hello-probes-noProxyHoldApplication-ProxyConfig.yaml',
    want: 'hello-probes-noProxyHoldApplication-ProxyConfig.yaml.injected',
    options: { setFlags: HOLD },
  },
  { in: 'traffic-annotations-bad-includeipranges.yaml', want: '', options: {}, expectedError: 'includeipranges' },
  { in: 'traffic-annotations-bad-excludeipranges.yaml', want: '', options: {}, expectedError: 'excludeipranges' },
  { in: 'traffic-annotations-bad-includeinboundports.yaml', want: '', options: {}, expectedError: 'includeinboundports' },
  { in: 'traffic-annotations-bad-excludeinboundports.yaml', want: '', options: {}, expectedError: 'excludeinboundports' },
  { in: 'traffic-annotations-bad-excludeoutboundports.yaml', want: '', options: {}, expectedError: 'excludeoutboundports' },
  {
    in: 'traffic-annotations.yaml',
    want: 'traffic-annotations.yaml.injected',
    options: { mesh: { defaultConfig: { proxyMetadata: { ISTIO_META_TLS_CLIENT_KEY: '/etc/identity/client/keys/client-key.pem' } } } },
  },
  { in: 'proxy-override-runas.yaml', want: 'proxy-override-runas.yaml.cni.injected', options: { setFlags: CNI } },
  { in: 'proxy-override-runas.yaml', want: 'proxy-override-runas.yaml.tproxy.injected', options: { mesh: TPROXY } },
  { in: 'proxy-override-args.yaml', want: 'proxy-override-args-native.yaml.injected', options: {} },
  { in: 'custom-template.yaml', want: 'custom-template.yaml.injected', options: { iopFile: 'custom-template.iop.yaml' } },
  { in: 'merge-probers.yaml', want: 'merge-probers.yaml.injected', options: { setFlags: HOLD } },
  { in: 'hello-tracing-disabled.yaml', want: 'hello-tracing-disabled.yaml.injected', options: { mesh: { defaultConfig: { tracing: {} } } } },
  { in: 'hello-openshift.yaml', want: 'hello-openshift.yaml.injected', options: { setFlags: CNI } },
  { in: 'hello-openshift-custom-injection.yaml', want: 'hello-openshift-custom-injection.yaml.injected', options: { setFlags: CNI } },
  { in: 'hello-openshift-tproxy.yaml', want: 'hello-openshift-tproxy.yaml.injected', options: { setFlags: CNI } },
  { in: 'hello-probes-localhost.yaml', want: 'hello-probes-localhost.yaml.injected', options: { mesh: { inboundTrafficPolicy: { mode: 'LOCALHOST' } } } },
  { in: 'hello.yaml', want: 'hello-fips-140-3.yaml.injected', options: { compliancePolicy: 'fips-140-3' } },
  {
    in: 'hello-otel-semconv.yaml',
    want: 'hello-otel-semconv.yaml.injected',
    options: {
      mesh: {
        extensionProviders: [
          { name: 'otel', opentelemetry: { service: 'otel.istio-system.svc', port: 4317, serviceAttributeEnrichment: 'OTEL_SEMANTIC_CONVENTIONS' } },
        ],
      },
    },
  },
  { in: 'proxy-resources-memory-null.yaml', want: 'proxy-resources-memory-null.yaml.injected', options: { iopFile: 'proxy-resources-memory-null.iop.yaml' } },
  { in: 'proxy-resources-mixed-null.yaml', want: 'proxy-resources-mixed-null.yaml.injected', options: { iopFile: 'proxy-resources-mixed-null.iop.yaml' } },
  { in: 'proxy-resources-null.yaml', want: 'proxy-resources-null.yaml.injected', options: { iopFile: 'proxy-resources-null.iop.yaml' } },
  { in: 'proxy-resources-null-no-init.yaml', want: 'proxy-resources-null-no-init.yaml.injected', options: { iopFile: 'proxy-resources-null.iop.yaml' } },
  { in: 'proxy-resources-zero.yaml', want: 'proxy-resources-zero.yaml.injected', options: { iopFile: 'proxy-resources-zero.iop.yaml' } },
  { in: 'sidecar-spire.yaml', want: 'sidecar-spire.yaml.injected', options: { iopFile: 'spire-template.iop.yaml' } },
  { in: 'gateway-spire.yaml', want: 'gateway-spire.yaml.injected', options: { iopFile: 'spire-template.iop.yaml' } },
];

/** Every case: the explicit ones, `X-old-version` (native sidecars off), and `X.yaml` -> `X.yaml.injected` with defaults. */
export function istioCases(dir = ISTIO_INJECT_DIR): IstioCase[] {
  const files = new Set(readdirSync(dir));
  const cases: IstioCase[] = EXPLICIT.filter((c) => files.has(c.in)).map((c) => ({
    ...c,
    options: { ...c.options, iopFile: c.options.iopFile === undefined ? undefined : dir + c.options.iopFile },
  }));
  const named = new Set(cases.map((c) => c.want));
  for (const f of [...files].sort()) {
    const old = /^(.*)-old-version\.yaml\.injected$/.exec(f);
    if (old !== null && files.has(`${old[1]}.yaml`) && !named.has(f)) {
      cases.push({ in: `${old[1]}.yaml`, want: f, options: { nativeSidecars: false } });
      named.add(f);
    }
  }
  for (const f of [...files].sort()) {
    if (!f.endsWith('.yaml') || f.endsWith('.iop.yaml')) continue;
    const want = `${f}.injected`;
    if (named.has(want) || !files.has(want)) continue;
    cases.push({ in: f, want, options: {} });
    named.add(want);
  }
  return cases;
}

/**
 * Golden files where we deliberately answer differently from Istio, with the error we give
 * instead and why. Counted and printed as deviations, never as matches.
 */
export const DELIBERATE_DIFFERENCES: Readonly<Record<string, { code: string; why: string }>> = {
  'only-proxy-container.yaml.injected': {
    code: 'SI_INJECT_CONFLICT',
    why: 'the only container is istio-proxy, which becomes a native sidecar; Istio emits "containers: []", a pod the apiserver rejects, so we deny it with a reason instead',
  },
};

interface TemplateOutcome {
  doc: number;
  where: string;
  istio: 'injected' | 'skipped';
  ours: 'injected' | 'skipped' | 'error';
  error?: string;
  /** Set when we differ on purpose (DELIBERATE_DIFFERENCES): why. */
  deviation?: string;
  /** Only for templates both injected: equal after normalisation. */
  identical?: boolean;
  differences?: string[];
}

export interface CaseResult {
  case: IstioCase;
  /** For error cases: whether we failed naming the annotation. */
  errorMatched?: boolean;
  error?: string;
  templates: TemplateOutcome[];
  statusMatches: boolean;
}

function documents(file: string): JsonValue[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as JsonValue)
    .filter((d) => d !== null && d !== undefined);
}

const configCache = new Map<string, LoadedConfig>();

function configFor(options: IstioChartOptions): LoadedConfig {
  const key = JSON.stringify(options);
  let c = configCache.get(key);
  if (c === undefined) {
    c = istioChartConfig(options);
    configCache.set(key, c);
  }
  return c;
}

function refsOf(doc: JsonValue): PodTemplateRef[] {
  try {
    return podTemplates(doc);
  } catch {
    return [];
  }
}

/** A pod or pod template of a case's input, with the context `inject -f` gives it. */
export interface CasePod {
  readonly pod: JsonObject;
  readonly ctx: InjectionContext;
  readonly owner: PodTemplateRef['owner'];
}

function casePod(ref: PodTemplateRef, doc: JsonValue): CasePod {
  const isPod = ref.owner.kind === 'Pod';
  const namespace = ref.owner.namespace ?? '';
  const ctx: InjectionContext = isPod
    ? { namespace, mode: 'manual' }
    : { namespace, mode: 'manual', owner: { kind: ref.owner.kind, name: ref.owner.name, apiVersion: ref.owner.apiVersion } };
  return { pod: isPod ? (doc as JsonObject) : ref.template, ctx, owner: ref.owner };
}

/** Every pod and pod template in a case's input, in order (documents that hold none are skipped). */
export function casePods(c: IstioCase, dir = ISTIO_INJECT_DIR): CasePod[] {
  const out: CasePod[] = [];
  for (const d of parseAllDocuments(readFileSync(dir + c.in, 'utf8'))) {
    const doc = d.toJS() as JsonValue;
    if (doc === null) continue;
    for (const ref of refsOf(doc)) out.push(casePod(ref, doc));
  }
  return out;
}

function inject(ref: PodTemplateRef, doc: JsonValue, config: LoadedConfig) {
  const { pod, ctx } = casePod(ref, doc);
  return injectPod(pod, ctx, config);
}

/** Run one case. */
export function runIstioCase(c: IstioCase, dir = ISTIO_INJECT_DIR, configOf: (options: IstioChartOptions) => LoadedConfig = configFor): CaseResult {
  const config = configOf(c.options);
  const inputs = documents(dir + c.in);
  if (c.expectedError !== undefined) {
    let error: string | undefined;
    for (const doc of inputs) {
      for (const ref of refsOf(doc)) {
        try {
          inject(ref, doc, config);
        } catch (err) {
          error ??= err instanceof Error ? err.message : String(err);
        }
      }
    }
    const errorMatched = error !== undefined && error.toLowerCase().includes(c.expectedError);
    return { case: c, error, errorMatched, templates: [], statusMatches: errorMatched };
  }
  const goldens = documents(dir + c.want);
  const templates: TemplateOutcome[] = [];
  inputs.forEach((doc, i) => {
    const golden = goldens[i];
    const inRefs = refsOf(doc);
    const goldenRefs = golden === undefined ? [] : refsOf(golden);
    inRefs.forEach((ref, j) => {
      const want = goldenRefs[j];
      const where = `${c.in}[${i}] ${ref.owner.kind}/${ref.owner.name}${ref.path.length > 0 ? ` at ${ref.path.join('.')}` : ''}`;
      const istioInjected = want !== undefined && !deepEqual(normalize(podPart(ref.template)), normalize(podPart(want.template)));
      const outcome: TemplateOutcome = { doc: i, where, istio: istioInjected ? 'injected' : 'skipped', ours: 'skipped' };
      try {
        const r = inject(ref, doc, config);
        outcome.ours = r.kind;
        if (r.kind === 'injected' && istioInjected) {
          const ours = normalize(podPart(r.pod), true);
          const theirs = normalize(podPart(want.template), true);
          outcome.identical = deepEqual(ours, theirs);
          if (!outcome.identical) outcome.differences = differences(theirs, ours, '');
        }
      } catch (err) {
        outcome.ours = 'error';
        outcome.error = err instanceof InjectorError ? `${err.code}: ${err.message}` : String(err);
        const deliberate = DELIBERATE_DIFFERENCES[c.want];
        if (deliberate !== undefined && err instanceof InjectorError && err.code === deliberate.code) outcome.deviation = deliberate.why;
      }
      templates.push(outcome);
    });
  });
  return { case: c, templates, statusMatches: templates.every((t) => t.istio === t.ours) };
}

/** Metadata and spec of a template or pod (what injection changes). */
function podPart(t: JsonObject): JsonObject {
  return { metadata: (t.metadata ?? {}) as JsonObject, spec: (t.spec ?? {}) as JsonObject };
}

const PROBE_INTS = ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold'];

/**
 * What Go's typed round trip (and Istio's webhook-leg comparison) makes irrelevant: nulls,
 * `resources: {}`, `creationTimestamp: null`, zero probe counters, non-canonical quantities,
 * and (when `dropStatus`) the status annotation.
 */
export function normalize(value: JsonValue, dropStatus = false, key = ''): JsonValue {
  if (Array.isArray(value)) return value.map((v) => normalize(v, dropStatus, key));
  if (!isPlainObject(value)) return value;
  const out: JsonObject = {};
  for (const k of Object.keys(value)) {
    let v = value[k];
    if (v === null || v === undefined) continue;
    if (dropStatus && key === 'annotations' && k === 'sidecar.istio.io/status') continue;
    if (PROBE_INTS.includes(k) && v === 0) continue;
    if (key === 'env' && k === 'value' && v === '') continue; // EnvVar.value is omitempty in Go
    if ((key === 'limits' || key === 'requests' || k === 'divisor') && (typeof v === 'string' || typeof v === 'number')) {
      if (key === 'limits' || key === 'requests' || k === 'divisor') v = canonicalQuantity(String(v));
    }
    v = normalize(v, dropStatus, k);
    if (k === 'resources' && isPlainObject(v) && Object.keys(v).length === 0) continue;
    out[k] = v;
  }
  return out;
}

/** A few readable differences between two normalised values (paths and both sides). */
export function differences(want: JsonValue, got: JsonValue, path: string, out: string[] = []): string[] {
  if (out.length >= 20 || deepEqual(want, got)) return out;
  if (isPlainObject(want) && isPlainObject(got)) {
    for (const k of new Set([...Object.keys(want), ...Object.keys(got)])) differences(want[k] ?? null, got[k] ?? null, `${path}.${k}`, out);
    return out;
  }
  if (Array.isArray(want) && Array.isArray(got)) {
    const key = (v: JsonValue, i: number) => (isPlainObject(v) && typeof v.name === 'string' ? `[name=${v.name}]` : `[${i}]`);
    const wn = want.map(key);
    const gn = got.map(key);
    if (want.length === got.length && wn.every((k, i) => k === gn[i])) {
      want.forEach((w, i) => differences(w, got[i], `${path}${wn[i]}`, out));
    } else {
      out.push(`${path}: golden ${JSON.stringify(wn)} vs ours ${JSON.stringify(gn)}`);
      for (const [i, k] of wn.entries()) {
        const j = gn.indexOf(k);
        if (j >= 0) differences(want[i], got[j], `${path}${k}`, out);
      }
    }
    return out;
  }
  out.push(`${path}: golden ${short(want)} vs ours ${short(got)}`);
  return out;
}

function short(v: JsonValue | undefined): string {
  const s = v === undefined ? 'absent' : JSON.stringify(v);
  return s.length > 120 && !process.env.FULL_DIFF ? `${s.slice(0, 117)}...` : s;
}

/** Summary over all cases. */
export interface Summary {
  cases: number;
  templates: number;
  statusMatched: number;
  errorCases: number;
  errorCasesMatched: number;
  injectedBoth: number;
  identical: number;
  topDifferences: [string, number][];
  mismatches: string[];
  /** Templates where we differ on purpose (DELIBERATE_DIFFERENCES), with why. */
  deviations: string[];
}

export function summarize(results: readonly CaseResult[]): Summary {
  let templates = 0;
  let statusMatched = 0;
  let injectedBoth = 0;
  let identical = 0;
  const diffCounts = new Map<string, number>();
  const mismatches: string[] = [];
  const deviations: string[] = [];
  for (const r of results) {
    if (r.case.expectedError !== undefined) {
      if (!r.errorMatched) mismatches.push(`${r.case.in}: expected an error naming ${r.case.expectedError}, got ${r.error ?? 'none'}`);
      continue;
    }
    for (const t of r.templates) {
      templates++;
      if (t.istio === t.ours) statusMatched++;
      else if (t.deviation !== undefined) deviations.push(`${r.case.want} ${t.where}: Istio ${t.istio}, ours ${t.ours}: ${t.deviation}`);
      else mismatches.push(`${r.case.want} ${t.where}: Istio ${t.istio}, ours ${t.ours}${t.error ? ` (${t.error.split('\n')[0]})` : ''}`);
      if (t.identical !== undefined) {
        injectedBoth++;
        if (t.identical) identical++;
        for (const d of new Set((t.differences ?? []).map((d) => d.split(':')[0].replace(/\[name=[^\]]*\]/g, '[]'))))
          diffCounts.set(d, (diffCounts.get(d) ?? 0) + 1);
      }
    }
  }
  const errorCases = results.filter((r) => r.case.expectedError !== undefined);
  return {
    cases: results.length,
    templates,
    statusMatched,
    errorCases: errorCases.length,
    errorCasesMatched: errorCases.filter((r) => r.errorMatched).length,
    injectedBoth,
    identical,
    topDifferences: [...diffCounts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15),
    mismatches,
    deviations,
  };
}

export function istioInjectDataPresent(dir = ISTIO_INJECT_DIR): boolean {
  return existsSync(dir) && existsSync(`${dir}hello.yaml`);
}
