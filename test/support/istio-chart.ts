/**
 * @module test/support/istio-chart
 * A LoadedConfig built from Istio's own chart (../shared/conformance/istio/chart, read at run
 * time when present, never copied): the injection templates and values exactly as istiod's
 * `istio-sidecar-injector` ConfigMap carries them (legacy `template:` key, empty
 * `injectedAnnotations:`, values scoped to global/sidecarInjectorWebhook/revision/pilot/gateways,
 * as JSON), plus what Istio's tests set around it: native sidecars on, the chart's mesh config,
 * and our switch for Istio's post-processing. Options mirror Istio's TestInjection knobs:
 * `--set`-style flags, an IstioOperator overlay file, mesh config changes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { parseConfig } from '../../src/profiles/index.js';
import type { LoadedConfig } from '../../src/config/types.js';
import { isPlainObject } from '../../src/util/json.js';

/** $SI_ISTIO_CONFORMANCE_DIR, else ../shared/conformance/istio next to the repository. */
export const ISTIO_CONFORMANCE_DIR = conformanceDir(process.env.SI_ISTIO_CONFORMANCE_DIR);

function conformanceDir(fromEnv: string | undefined): string {
  if (fromEnv === undefined || fromEnv === '') return fileURLToPath(new URL('../../../shared/conformance/istio/', import.meta.url));
  return fromEnv.endsWith('/') ? fromEnv : `${fromEnv}/`;
}
export const ISTIO_CHART_DIR = `${ISTIO_CONFORMANCE_DIR}chart/`;
export const ISTIO_INJECT_DIR = `${ISTIO_CONFORMANCE_DIR}inject/`;

/** Whether Istio's conformance data is there (tests skip cleanly when not). */
export function istioChartPresent(): boolean {
  return existsSync(`${ISTIO_CHART_DIR}injection-template.yaml`) && existsSync(`${ISTIO_CHART_DIR}values.yaml`);
}

/** The chart's template files, by template name. */
export const ISTIO_TEMPLATE_FILES: Readonly<Record<string, string>> = {
  sidecar: 'injection-template.yaml',
  gateway: 'gateway-injection-template.yaml',
  'grpc-simple': 'grpc-simple.yaml',
  'grpc-agent': 'grpc-agent.yaml',
};

export interface IstioChartOptions {
  /** Istio's setFlags: `values.global.proxy.image=proxyTest`, `components.cni.enabled=true`. */
  setFlags?: readonly string[];
  /** An IstioOperator file (`*.iop.yaml`) whose spec.values are merged over the chart's. */
  iopFile?: string;
  /** Mesh config changes (protojson), merged over the chart's meshConfig (defaultConfig merged field by field). */
  mesh?: Record<string, unknown>;
  /** Native sidecars (default true: the goldens assume kubelet >= 1.33). */
  nativeSidecars?: boolean;
  /** Istio's COMPLIANCE_POLICY (e.g. `fips-140-3`). */
  compliancePolicy?: string;
  /** Templates to load (default: all four of the chart); sidecarInjectorWebhook.templates are added. */
  templates?: readonly string[];
  /** Default templates (default [sidecar]). */
  defaultTemplates?: readonly string[];
  /** Istio's post-processing (prometheus merge, probe rewrite); default on. */
  postProcessing?: boolean;
}

const read = (file: string) => readFileSync(ISTIO_CHART_DIR + file, 'utf8');

type Obj = Record<string, unknown>;

function deepMerge(base: unknown, over: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(over)) return over;
  const out: Obj = { ...base };
  for (const k of Object.keys(over)) out[k] = k in base ? deepMerge(base[k], over[k]) : over[k];
  return out;
}

function setPath(obj: Obj, path: string[], value: unknown): void {
  let node = obj;
  for (const seg of path.slice(0, -1)) {
    if (!isPlainObject(node[seg])) node[seg] = {};
    node = node[seg] as Obj;
  }
  node[path[path.length - 1]] = value;
}

function flagValue(text: string): unknown {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (/^-?\d+$/.test(text)) return Number(text);
  return text;
}

/** The chart's values (`_internal_defaults_do_not_set`) with flags and the overlay applied. */
export function istioChartValues(options: IstioChartOptions = {}): Obj {
  let values = structuredClone((parse(read('values.yaml')) as { _internal_defaults_do_not_set: Obj })._internal_defaults_do_not_set);
  if (options.iopFile !== undefined) {
    const iop = parse(readFileSync(options.iopFile, 'utf8')) as { spec?: { values?: Obj } };
    values = deepMerge(values, iop.spec?.values ?? {}) as Obj;
  }
  for (const flag of options.setFlags ?? []) {
    const eq = flag.indexOf('=');
    const path = flag.slice(0, eq).split('.');
    const value = flagValue(flag.slice(eq + 1));
    if (path[0] === 'values') setPath(values, path.slice(1), value);
    else if (path.join('.') === 'components.cni.enabled') setPath(values, ['cni', 'enabled'], value);
    else throw new Error(`unsupported flag ${flag}`);
  }
  return values;
}

/** A LoadedConfig as istiod would have it for the given options. */
export function istioChartConfig(options: IstioChartOptions = {}): LoadedConfig {
  const { config, values } = istioChartTexts(options, false);
  return parseConfig(config, values, 'istio-sidecar-injector');
}

/**
 * The `istio-sidecar-injector` ConfigMap as `kubectl get configmap -o yaml` prints it, with no
 * key of ours besides `values.meshConfig` (the mesh config Istio keeps in another ConfigMap):
 * no `nativeSidecars`, no `values.istioPostProcessing`. Native sidecars off is said the way
 * Istio says it, `values.pilot.env.ENABLE_NATIVE_SIDECARS: "false"`.
 */
export function istioChartConfigMap(options: IstioChartOptions = {}): string {
  const { config, values } = istioChartTexts(options, true);
  return stringify(
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'istio-sidecar-injector', namespace: 'istio-system', labels: { 'istio.io/rev': 'default', release: 'istio' } },
      data: { config, values },
    },
    { blockQuote: 'literal', lineWidth: 0 },
  );
}

function istioChartTexts(options: IstioChartOptions, plain: boolean): { config: string; values: string } {
  const v = istioChartValues(options);
  const sidecarWebhook = (v.sidecarInjectorWebhook ?? {}) as Obj;
  const templates: Record<string, string> = {};
  for (const name of options.templates ?? Object.keys(ISTIO_TEMPLATE_FILES)) templates[name] = read(ISTIO_TEMPLATE_FILES[name]);
  if (isPlainObject(sidecarWebhook.templates)) for (const [k, t] of Object.entries(sidecarWebhook.templates)) templates[k] = String(t);
  const config = [
    `defaultTemplates: [${(options.defaultTemplates ?? ['sidecar']).join(', ')}]`,
    `policy: ${String(((v.global as Obj).proxy as Obj).autoInject ?? 'enabled')}`,
    'alwaysInjectSelector:',
    '  []',
    'neverInjectSelector:',
    '  []',
    'injectedAnnotations:',
    'template: "{{ Template_Version_And_Istio_Version_Mismatched_Check_Installation }}"',
    ...(plain ? [] : [`nativeSidecars: ${options.nativeSidecars ?? true}`]),
    stringify({ templates }, { blockQuote: 'literal', lineWidth: 0 }),
  ].join('\n');
  const gateways = (v.gateways ?? {}) as Obj;
  const global = { ...(v.global as Obj) };
  if (options.compliancePolicy !== undefined) global.compliancePolicy = options.compliancePolicy;
  const mesh = deepMerge({ ...(v.meshConfig as Obj), trustDomain: 'cluster.local' }, options.mesh ?? {});
  const env = { ...((v.env ?? {}) as Obj) };
  if (plain && options.nativeSidecars === false) env.ENABLE_NATIVE_SIDECARS = 'false';
  const values = {
    global,
    sidecarInjectorWebhook: sidecarWebhook,
    revision: v.revision ?? '',
    pilot: { cni: v.cni, env },
    gateways: { securityContext: gateways.securityContext, seccompProfile: gateways.seccompProfile },
    // Our extension: the mesh config istiod reads from its own ConfigMap.
    meshConfig: mesh,
    // The older explicit switch for Istio's post-processing (the plain ConfigMap relies on detection).
    ...(plain ? {} : { istioPostProcessing: options.postProcessing ?? true }),
  };
  return { config, values: JSON.stringify(values, null, 2) };
}
