/**
 * @module config/builtin-values
 * The values the built-in `sidecar` template reads (defaults/values.yaml), as a schema: a typo
 * there renders a broken sidecar without any error (`hubb:` gives the image
 * `<nil>/proxyv2:1.24.2`, `statusPort: "15021x"` drops the readiness probe), so a config whose
 * template is the built-in one has its values checked at load, in every command alike. A config
 * with a template of its own is not judged by this schema: its values mean what its template
 * makes of them. Keys a pod annotation overrides take what that annotation takes
 * (config/value-rules, shared with istio/validate-annotations).
 */
import { isPlainObject } from '../util/json.js';
import { readPackageFile } from '../util/package-files.js';
import { parseKubeYaml } from '../yaml/index.js';
import { bool, byRule, integer, matching, oneOf, port, quantity, text } from './value-leaves.js';
import {
  excludeIPRangesRule,
  includeInboundPortsRule,
  includeIPRangesRule,
  INTERCEPTION_MODES,
  interceptionModeRule,
  portListRule,
  quantityRule,
  statusPortRule,
  uint32Rule,
  type ValueRule,
} from './value-rules.js';
import { checkValuesSchema, type MapRule, type Rule, type ValuesIssue } from './values-schema.js';

/** Envoy's levels (pilot-agent --proxyLogLevel), each alone or as `scope:level`, comma-separated. */
const LOG_LEVELS = ['trace', 'debug', 'info', 'warning', 'warn', 'error', 'critical', 'off'];
const logLevelRule: ValueRule = (v) =>
  v.split(',').every((part) => LOG_LEVELS.includes(part.slice(part.indexOf(':') + 1).trim())) ? undefined : 'not a log level';

const map = (keys: Record<string, Rule>, optional = false): MapRule => ({ kind: 'map', keys, optional });
const ANY_MAP: MapRule = { kind: 'map', optional: true };
const TRAFFIC = 'traffic.sidecar.istio.io';
const uint32 = (what: string) => integer(what, 0, 0xffffffff, { accept: uint32Rule });
const portList = (name: string, annotation: string) => byRule('a comma-separated list of ports', portListRule(name), { annotation, port: true });

/** `requests`/`limits` with `cpu`/`memory`; the proxy's may be left out or "" (the template leaves them unset). */
function resources(unset: boolean): MapRule {
  const q = (annotation?: string) => quantity(quantityRule, { unset, annotation });
  return map({
    requests: map({ cpu: q(unset ? 'sidecar.istio.io/proxyCPU' : undefined), memory: q(unset ? 'sidecar.istio.io/proxyMemory' : undefined) }, unset),
    limits: map({ cpu: q(unset ? 'sidecar.istio.io/proxyCPULimit' : undefined), memory: q(unset ? 'sidecar.istio.io/proxyMemoryLimit' : undefined) }, unset),
  });
}

const IMAGE = matching('an image name such as proxyv2 (or a whole image with "/", used as is)', /^\S+$/);

/** defaults/values.yaml, key by key (its comments say what each is for). */
const BUILTIN_VALUES_SCHEMA: MapRule = map({
  revision: text('the revision name', { optional: true, empty: true }),
  // Read by the product itself, not the template: the Istio profile checks the mesh config.
  meshConfig: ANY_MAP,
  istioPostProcessing: bool({ optional: true }),
  global: map({
    hub: matching('a registry path such as docker.io/istio', /^\S+$/, (v) => (v.endsWith('/') ? 'must not end with "/" (the template adds it)' : undefined)),
    tag: matching('an image tag such as "1.24.2"', /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/),
    imagePullPolicy: oneOf(['', 'Always', 'IfNotPresent', 'Never'], { optional: true }),
    clusterDomain: text('a DNS domain such as cluster.local'),
    proxy: map({
      image: IMAGE,
      nativeSidecar: bool({ optional: true, annotation: 'sidecar.istio.io/nativeSidecar' }),
      interceptionMode: oneOf(INTERCEPTION_MODES, { annotation: 'sidecar.istio.io/interceptionMode', accept: interceptionModeRule }),
      uid: integer('a user id', 1, 2147483647, { note: 'not 0: the proxy runs with runAsNonRoot: true, which the kubelet refuses for root' }),
      gid: integer('a group id', 0, 2147483647),
      outboundCapturePort: port(),
      inboundCapturePort: port(),
      statusPort: port({ zero: 'turn the readiness probes off', annotation: 'status.sidecar.istio.io/port', accept: statusPortRule }),
      metricsPort: port(),
      includeIPRanges: byRule('"*" or a comma-separated list of CIDRs', includeIPRangesRule, { annotation: `${TRAFFIC}/includeOutboundIPRanges` }),
      excludeIPRanges: byRule('a comma-separated list of CIDRs', excludeIPRangesRule, { annotation: `${TRAFFIC}/excludeOutboundIPRanges` }),
      includeInboundPorts: byRule('"*" or a comma-separated list of ports', includeInboundPortsRule, {
        annotation: `${TRAFFIC}/includeInboundPorts`,
        port: true,
      }),
      excludeInboundPorts: portList('excludeInboundPorts', `${TRAFFIC}/excludeInboundPorts`),
      includeOutboundPorts: portList('includeOutboundPorts', `${TRAFFIC}/includeOutboundPorts`),
      excludeOutboundPorts: portList('excludeOutboundPorts', `${TRAFFIC}/excludeOutboundPorts`),
      logLevel: oneOf(LOG_LEVELS, { annotation: 'sidecar.istio.io/logLevel', accept: logLevelRule }),
      readinessInitialDelaySeconds: uint32('a number of seconds'),
      readinessPeriodSeconds: uint32('a number of seconds'),
      readinessFailureThreshold: uint32('a number of failures'),
      resources: resources(true),
      tokenAudience: text('an audience such as istio-ca'),
      tokenExpirationSeconds: integer('a number of seconds', 600, 4294967296, { note: "Kubernetes' bounds for a projected token" }),
      // Read by the Istio profile (the proxy starts before the app), as a boolean only.
      holdApplicationUntilProxyStarts: bool({ optional: true }),
    }),
    proxy_init: map({ image: IMAGE, resources: resources(false) }),
  }),
});

const MISSING_NOTES: Record<string, string> = {
  'global.hub': 'images are HUB/IMAGE:TAG; without it they would be <nil>/IMAGE:TAG',
  'global.tag': 'images are HUB/IMAGE:TAG; without it they would be HUB/IMAGE:<nil>',
  'global.proxy.statusPort': 'without it the readiness probe is dropped; 0 turns it off on purpose',
};

/** The hub and tag make the images unless both images are whole (hold a "/"). */
function required(path: string, values: unknown): boolean {
  if (path !== 'global.hub' && path !== 'global.tag') return true;
  const g = isPlainObject(values) ? values.global : undefined;
  const image = (k: string) => {
    const part = isPlainObject(g) ? g[k] : undefined;
    return isPlainObject(part) && typeof part.image === 'string' ? part.image : '';
  };
  return !(image('proxy').includes('/') && image('proxy_init').includes('/'));
}

/**
 * The problems of `values` when one of `templates` is the built-in sidecar template; undefined
 * when none is (the values are then the config's own business).
 */
export function checkBuiltinValues(
  templates: Readonly<Record<string, string>>,
  values: unknown,
): { errors: ValuesIssue[]; warnings: ValuesIssue[] } | undefined {
  const builtin = builtinTemplateText();
  if (builtin === undefined || !Object.values(templates).some((t) => normalise(t) === builtin)) return undefined;
  return checkValuesSchema(BUILTIN_VALUES_SCHEMA, values, {
    reader: 'the built-in sidecar template',
    missingNote: (path) => MISSING_NOTES[path],
    required,
  });
}

let builtinText: string | null | undefined;

/** The built-in template's text (normalised), read once; undefined when the package lacks it. */
function builtinTemplateText(): string | undefined {
  if (builtinText === undefined) {
    builtinText = null;
    try {
      const doc = parseKubeYaml(readPackageFile('defaults/config.yaml')).value;
      const t = isPlainObject(doc) && isPlainObject(doc.templates) ? doc.templates.sidecar : undefined;
      if (typeof t === 'string') builtinText = normalise(t);
    } catch {
      // No built-in config (a broken install): defaultConfig reports that; nothing to compare with.
    }
  }
  return builtinText ?? undefined;
}

/** A copy pasted into a one-file config may differ in line endings and trailing blanks only. */
function normalise(t: string): string {
  return t
    .replace(/\r\n/g, '\n')
    .replace(/[ \t]+$/gm, '')
    .trimEnd();
}
