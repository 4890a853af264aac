/**
 * @module istio/mesh-config
 * `.MeshConfig` and `.ProxyConfig` for templates, built as Istio builds them: Istio's default
 * mesh config, overridden by `values.meshConfig` (our extension: Istio reads the mesh config
 * from its own ConfigMap, which our config does not have), then for the proxy config the
 * pod's `proxy.istio.io/config` annotation (YAML or JSON), field by field, with
 * `proxyMetadata` merged key by key (Istio's MergeProxyConfig). `.ProxyConfig` prints (through
 * `protoToJSON`) only what differs from Istio's defaults, as Istio's cleanProxyConfig does.
 */
import { ConfigError, InjectionError } from '../errors.js';
import { parseYamlDocument } from '../yaml/index.js';
import { deepEqual, deepFreeze, isPlainObject } from '../util/json.js';
import type { InjectorConfig } from '../config/types.js';
import { setOwn } from '../util/own.js';
import { normalizeProto, protoJson, ProtoMessage, type EnumType, type MessageSchema } from './proto.js';

/** The pod annotation holding per-pod proxy config overrides (Istio's). */
export const PROXY_CONFIG_ANNOTATION = 'proxy.istio.io/config';

const INTERCEPTION_MODE: EnumType = { goType: 'v1alpha1.ProxyConfig_InboundInterceptionMode', names: { 0: 'REDIRECT', 1: 'TPROXY', 2: 'NONE' } };
const AUTH_POLICY: EnumType = { goType: 'v1alpha1.AuthenticationPolicy', names: { 0: 'NONE', 1: 'MUTUAL_TLS', 1000: 'INHERIT' } };
const TRACING_SERVICE_NAME: EnumType = {
  goType: 'v1alpha1.ProxyConfig_TracingServiceName',
  names: { 0: 'APP_LABEL_AND_NAMESPACE', 1: 'CANONICAL_NAME_ONLY', 2: 'CANONICAL_NAME_AND_NAMESPACE' },
};
const INBOUND_TRAFFIC_MODE: EnumType = { goType: 'v1alpha1.MeshConfig_InboundTrafficPolicy_Mode', names: { 0: 'PASSTHROUGH', 1: 'LOCALHOST' } };
const TLS_MODE: EnumType = { goType: 'v1alpha3.ClientTLSSettings_TLSmode', names: { 0: 'DISABLE', 1: 'SIMPLE', 2: 'MUTUAL', 3: 'ISTIO_MUTUAL' } };

const CLIENT_TLS: MessageSchema = {
  goType: 'v1alpha3.ClientTLSSettings',
  fields: [
    ['Mode', 'mode', { enum: TLS_MODE }],
    ['ClientCertificate', 'clientCertificate', 'string'],
    ['PrivateKey', 'privateKey', 'string'],
    ['CaCertificates', 'caCertificates', 'string'],
    ['CredentialName', 'credentialName', 'string'],
    ['SubjectAltNames', 'subjectAltNames', 'repeated-string'],
    ['Sni', 'sni', 'string'],
    ['InsecureSkipVerify', 'insecureSkipVerify', 'bool-wrapper'],
    ['CaCrl', 'caCrl', 'string'],
  ],
};

const TRACING: MessageSchema = {
  goType: 'v1alpha1.Tracing',
  fields: [
    ['Zipkin', 'zipkin', 'json'],
    ['Lightstep', 'lightstep', 'json'],
    ['Datadog', 'datadog', 'json'],
    ['Stackdriver', 'stackdriver', 'json'],
    ['OpenCensusAgent', 'openCensusAgent', 'json'],
    ['CustomTags', 'customTags', 'json'],
    ['MaxPathTagLength', 'maxPathTagLength', 'uint32'],
    ['Sampling', 'sampling', 'json'],
    ['TlsSettings', 'tlsSettings', { message: () => CLIENT_TLS }],
    ['EnableIstioTags', 'enableIstioTags', 'bool-wrapper'],
  ],
};

const PROXY_IMAGE: MessageSchema = { goType: 'v1beta1.ProxyImage', fields: [['ImageType', 'imageType', 'string']] };

/** Istio's meshconfig.ProxyConfig, fields in proto declaration order. */
const PROXY_CONFIG_SCHEMA: MessageSchema = {
  goType: 'v1alpha1.ProxyConfig',
  fields: [
    ['ConfigPath', 'configPath', 'string'],
    ['BinaryPath', 'binaryPath', 'string'],
    ['ServiceCluster', 'serviceCluster', 'string'],
    ['TracingServiceName', 'tracingServiceName', { enum: TRACING_SERVICE_NAME }],
    ['DrainDuration', 'drainDuration', 'duration'],
    ['ParentShutdownDuration', 'parentShutdownDuration', 'duration'],
    ['DiscoveryAddress', 'discoveryAddress', 'string'],
    ['DiscoveryRefreshDelay', 'discoveryRefreshDelay', 'duration'],
    ['ZipkinAddress', 'zipkinAddress', 'string'],
    ['StatsdUdpAddress', 'statsdUdpAddress', 'string'],
    ['EnvoyMetricsServiceAddress', 'envoyMetricsServiceAddress', 'string'],
    ['ProxyAdminPort', 'proxyAdminPort', 'int32'],
    ['AvailabilityZone', 'availabilityZone', 'string'],
    ['ControlPlaneAuthPolicy', 'controlPlaneAuthPolicy', { enum: AUTH_POLICY }],
    ['CustomConfigFile', 'customConfigFile', 'string'],
    ['StatNameLength', 'statNameLength', 'int32'],
    ['Concurrency', 'concurrency', 'int32-wrapper'],
    ['ProxyBootstrapTemplatePath', 'proxyBootstrapTemplatePath', 'string'],
    ['InterceptionMode', 'interceptionMode', { enum: INTERCEPTION_MODE }],
    ['Tracing', 'tracing', { message: () => TRACING }],
    ['Sds', 'sds', 'json'],
    ['EnvoyAccessLogService', 'envoyAccessLogService', 'json'],
    ['EnvoyMetricsService', 'envoyMetricsService', 'json'],
    ['ProxyMetadata', 'proxyMetadata', 'map'],
    ['RuntimeValues', 'runtimeValues', 'map'],
    ['StatusPort', 'statusPort', 'int32'],
    ['ExtraStatTags', 'extraStatTags', 'repeated-string'],
    ['GatewayTopology', 'gatewayTopology', 'json'],
    ['TerminationDrainDuration', 'terminationDrainDuration', 'duration'],
    ['MeshId', 'meshId', 'string'],
    ['ReadinessProbe', 'readinessProbe', 'json'],
    ['ProxyStatsMatcher', 'proxyStatsMatcher', 'json'],
    ['HoldApplicationUntilProxyStarts', 'holdApplicationUntilProxyStarts', 'bool-wrapper'],
    ['CaCertificatesPem', 'caCertificatesPem', 'repeated-string'],
    ['Image', 'image', { message: () => PROXY_IMAGE }],
    ['PrivateKeyProvider', 'privateKeyProvider', 'json'],
    ['ProxyHeaders', 'proxyHeaders', 'json'],
  ],
};

const INBOUND_TRAFFIC_POLICY: MessageSchema = {
  goType: 'v1alpha1.MeshConfig_InboundTrafficPolicy',
  fields: [['Mode', 'mode', { enum: INBOUND_TRAFFIC_MODE }]],
};

/** Istio's meshconfig.MeshConfig: the fields templates and the injector read, plus common ones. */
const MESH_CONFIG_SCHEMA: MessageSchema = {
  goType: 'v1alpha1.MeshConfig',
  fields: [
    ['ProxyListenPort', 'proxyListenPort', 'int32'],
    ['ProxyInboundListenPort', 'proxyInboundListenPort', 'int32'],
    ['ProxyHttpPort', 'proxyHttpPort', 'int32'],
    ['ConnectTimeout', 'connectTimeout', 'duration'],
    ['ProtocolDetectionTimeout', 'protocolDetectionTimeout', 'duration'],
    ['TcpKeepalive', 'tcpKeepalive', 'json'],
    ['IngressClass', 'ingressClass', 'string'],
    ['IngressService', 'ingressService', 'string'],
    ['IngressControllerMode', 'ingressControllerMode', 'json'],
    ['IngressSelector', 'ingressSelector', 'string'],
    ['EnableTracing', 'enableTracing', 'bool'],
    ['AccessLogFile', 'accessLogFile', 'string'],
    ['AccessLogFormat', 'accessLogFormat', 'string'],
    ['AccessLogEncoding', 'accessLogEncoding', 'json'],
    ['EnableEnvoyAccessLogService', 'enableEnvoyAccessLogService', 'bool'],
    ['DisableEnvoyListenerLog', 'disableEnvoyListenerLog', 'bool'],
    ['DefaultConfig', 'defaultConfig', { message: () => PROXY_CONFIG_SCHEMA }],
    ['OutboundTrafficPolicy', 'outboundTrafficPolicy', 'json'],
    ['InboundTrafficPolicy', 'inboundTrafficPolicy', { message: () => INBOUND_TRAFFIC_POLICY }],
    ['ConfigSources', 'configSources', 'json'],
    ['EnableAutoMtls', 'enableAutoMtls', 'bool-wrapper'],
    ['TrustDomain', 'trustDomain', 'string'],
    ['TrustDomainAliases', 'trustDomainAliases', 'repeated-string'],
    ['DefaultServiceExportTo', 'defaultServiceExportTo', 'repeated-string'],
    ['DefaultVirtualServiceExportTo', 'defaultVirtualServiceExportTo', 'repeated-string'],
    ['DefaultDestinationRuleExportTo', 'defaultDestinationRuleExportTo', 'repeated-string'],
    ['RootNamespace', 'rootNamespace', 'string'],
    ['LocalityLbSetting', 'localityLbSetting', 'json'],
    ['DnsRefreshRate', 'dnsRefreshRate', 'duration'],
    ['H2UpgradePolicy', 'h2UpgradePolicy', 'json'],
    ['InboundClusterStatName', 'inboundClusterStatName', 'string'],
    ['OutboundClusterStatName', 'outboundClusterStatName', 'string'],
    ['Certificates', 'certificates', 'json'],
    ['ThriftConfig', 'thriftConfig', 'json'],
    ['ServiceSettings', 'serviceSettings', 'json'],
    ['EnablePrometheusMerge', 'enablePrometheusMerge', 'bool-wrapper'],
    ['VerifyCertificateAtClient', 'verifyCertificateAtClient', 'bool-wrapper'],
    ['Ca', 'ca', 'json'],
    ['ExtensionProviders', 'extensionProviders', 'json'],
    ['DefaultProviders', 'defaultProviders', 'json'],
    ['DiscoverySelectors', 'discoverySelectors', 'json'],
    ['PathNormalization', 'pathNormalization', 'json'],
    ['DefaultHttpRetryPolicy', 'defaultHttpRetryPolicy', 'json'],
    ['MeshMTLS', 'meshMTLS', 'json'],
    ['TlsDefaults', 'tlsDefaults', 'json'],
  ],
};

/**
 * Istio's DefaultProxyConfig (pkg/config/mesh), in protojson. Current Istio sets no concurrency
 * and no tracing default (older releases had 2 and a zipkin address; the live peer showed a pod's
 * explicit `concurrency: 2` kept in PROXY_CONFIG, which only holds with no default).
 */
const DEFAULT_PROXY_CONFIG: Readonly<Record<string, unknown>> = deepFreeze({
  configPath: './etc/istio/proxy',
  binaryPath: '/usr/local/bin/envoy',
  serviceCluster: 'istio-proxy',
  drainDuration: '45s',
  terminationDrainDuration: '5s',
  proxyAdminPort: 15000,
  controlPlaneAuthPolicy: 'MUTUAL_TLS',
  discoveryAddress: 'istiod.istio-system.svc:15012',
  statNameLength: 189,
  statusPort: 15020,
});

/** Istio's DefaultMeshConfig, the parts an injector can observe, in protojson. */
const DEFAULT_MESH_CONFIG: Readonly<Record<string, unknown>> = deepFreeze({
  proxyListenPort: 15001,
  proxyInboundListenPort: 15006,
  connectTimeout: '10s',
  protocolDetectionTimeout: '0s',
  ingressClass: 'istio',
  ingressService: 'istio-ingressgateway',
  ingressControllerMode: 'STRICT',
  enableTracing: true,
  defaultConfig: DEFAULT_PROXY_CONFIG,
  outboundTrafficPolicy: { mode: 'ALLOW_ANY' },
  enableAutoMtls: true,
  trustDomain: 'cluster.local',
  rootNamespace: 'istio-system',
  dnsRefreshRate: '60s',
  enablePrometheusMerge: true,
  defaultProviders: {},
  extensionProviders: [
    { name: 'prometheus', prometheus: {} },
    { name: 'stackdriver', stackdriver: {} },
    { name: 'envoy', envoyFileAccessLog: { path: '/dev/stdout' } },
  ],
});

/** Fields Istio's cleanProxyConfig drops when they equal the defaults. */
const CLEANED_FIELDS = [
  'configPath',
  'binaryPath',
  'controlPlaneAuthPolicy',
  'serviceCluster',
  'drainDuration',
  'terminationDrainDuration',
  'parentShutdownDuration',
  'discoveryAddress',
  'envoyMetricsService',
  'envoyAccessLogService',
  'tracing',
  'proxyAdminPort',
  'statNameLength',
  'statusPort',
  'concurrency',
];

export interface MeshSettings {
  /** The mesh config in protojson (defaults + values.meshConfig). */
  readonly mesh: Readonly<Record<string, unknown>>;
  readonly meshObject: ProtoMessage;
  /** The mesh-wide proxy config (no pod annotation). */
  readonly proxy: Readonly<Record<string, unknown>>;
  readonly proxyObject: ProtoMessage;
}

/** The agent's status port (the mesh-wide proxy config's statusPort): where Istio points the app's probes and metrics. */
export function agentStatusPort(mesh: Pick<MeshSettings, 'proxy'>): number {
  const p = mesh.proxy.statusPort;
  return typeof p === 'number' ? p : 15020;
}

/**
 * The mesh settings of a config's `values.meshConfig`, computed once at config load (the Istio
 * profile's state). A bad value is a ConfigError, so the load fails (and reload keeps the last
 * good config) instead of every pod's injection later.
 */
export function meshSettings(config: Pick<InjectorConfig, 'values'>): MeshSettings {
  const raw = config.values.meshConfig;
  let mesh: Record<string, unknown> = { ...DEFAULT_MESH_CONFIG };
  if (raw !== undefined && raw !== null) {
    if (!isPlainObject(raw)) throw new ConfigError('SI_CONFIG_INVALID', "values.meshConfig must be a map (Istio's MeshConfig in YAML/JSON form)");
    const { value, problems } = normalizeProto(MESH_CONFIG_SCHEMA, raw, 'values.meshConfig');
    if (problems.length > 0) throw new ConfigError('SI_CONFIG_INVALID', `values.meshConfig is invalid: ${problems.join('; ')}`);
    // Istio's ApplyMeshConfig: every field replaces the default, except defaultConfig, which is merged.
    const { defaultConfig, ...rest } = value;
    mesh = { ...mesh, ...rest };
    if (isPlainObject(defaultConfig)) mesh.defaultConfig = mergeProxyConfig(DEFAULT_PROXY_CONFIG, defaultConfig);
  }
  // Shared by every pod's render: frozen whole, so a template's `set` into a nested map (which
  // Go refuses anyway: these are typed proto messages) fails instead of changing later pods.
  deepFreeze(mesh);
  const proxy = mesh.defaultConfig as Record<string, unknown>;
  return {
    mesh,
    meshObject: new ProtoMessage(MESH_CONFIG_SCHEMA, mesh, () => protoJson(MESH_CONFIG_SCHEMA, mesh)),
    proxy,
    proxyObject: proxyConfigObject(proxy),
  };
}

/** Field-by-field override; proxyMetadata merged key by key (Istio's MergeProxyConfig). */
function mergeProxyConfig(base: Readonly<Record<string, unknown>>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const k of Object.keys(over)) setOwn(out, k, over[k]);
  if (isPlainObject(base.proxyMetadata) && isPlainObject(over.proxyMetadata)) out.proxyMetadata = { ...base.proxyMetadata, ...over.proxyMetadata };
  return out;
}

/** `.ProxyConfig`: a view whose JSON is Istio's cleaned protojson (what protoToJSON prints). */
function proxyConfigObject(proxy: Record<string, unknown>): ProtoMessage {
  return new ProtoMessage(PROXY_CONFIG_SCHEMA, proxy, () => {
    const cleaned: Record<string, unknown> = { ...proxy };
    for (const k of CLEANED_FIELDS) if (deepEqual(cleaned[k], DEFAULT_PROXY_CONFIG[k])) delete cleaned[k];
    return protoJson(PROXY_CONFIG_SCHEMA, cleaned);
  });
}

/**
 * The proxy config for one pod: the mesh's, overridden by the `proxy.istio.io/config`
 * annotation when present. A malformed annotation is an InjectionError naming it.
 */
export function podProxyConfig(settings: MeshSettings, annotation: string | undefined): { json: Readonly<Record<string, unknown>>; object: ProtoMessage } {
  if (annotation === undefined) return { json: settings.proxy, object: settings.proxyObject };
  const over = parseProxyConfigAnnotation(annotation);
  // Frozen like the config's own proxy config, so a template's `set` into .ProxyConfig fails the
  // same way for an annotated pod as for any other (Go refuses it: a typed proto message).
  const json = deepFreeze(mergeProxyConfig(settings.proxy, over));
  return { json, object: proxyConfigObject(json) };
}

/** Parse and check the annotation's YAML/JSON as a ProxyConfig. */
export function parseProxyConfigAnnotation(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseYamlDocument(text, { file: `annotation ${PROXY_CONFIG_ANNOTATION}` }).value;
  } catch (err) {
    throw new InjectionError(
      'SI_INJECT_ANNOTATION',
      `annotation ${PROXY_CONFIG_ANNOTATION} is not valid YAML or JSON: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
  if (value === null) return {};
  if (!isPlainObject(value)) {
    throw new InjectionError(
      'SI_INJECT_ANNOTATION',
      `annotation ${PROXY_CONFIG_ANNOTATION} must hold a ProxyConfig map (e.g. '{"holdApplicationUntilProxyStarts": true}')`,
    );
  }
  const { value: normalized, problems } = normalizeProto(PROXY_CONFIG_SCHEMA, value);
  if (problems.length > 0) throw new InjectionError('SI_INJECT_ANNOTATION', `annotation ${PROXY_CONFIG_ANNOTATION} is invalid: ${problems.join('; ')}`);
  return normalized;
}

/** Istio's InboundTrafficPolicyMode: "localhost" or "passthrough". */
export function inboundTrafficPolicyMode(mesh: Readonly<Record<string, unknown>>): string {
  const policy = mesh.inboundTrafficPolicy;
  return isPlainObject(policy) && (policy.mode === 'LOCALHOST' || policy.mode === 1) ? 'localhost' : 'passthrough';
}
