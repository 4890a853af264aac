/**
 * @module istio/gateway-data
 * What Istio's gateway deployment templates (`kube-gateway`, `waypoint`, `agentgateway`,
 * `agentgateway-waypoint` in the istio-sidecar-injector ConfigMap) render with. Istiod does not
 * inject these into pods: its gateway deployment controller renders one for each Gateway of a
 * managed class, with a `gatewaycommon.derivedInput` as `.`, into a ServiceAccount, Deployment
 * and Service. Here that data is built from a Gateway object, as the controller builds it
 * (pilot/pkg/config/kube/gatewaycommon/deploymentcontroller.go, at the pinned Istio), so that
 * `config check` can render each template for the Gateways it is meant for.
 *
 * | field | from |
 * |---|---|
 * | (embedded TemplateInput, embedding *Gateway) | the Gateway: `.Name`, `.Namespace`, `.UID`, `.ObjectMeta`, `.Spec` are promoted |
 * | GatewayClass, DeploymentName, ServiceAccount | class name; name, or `NAME-CLASS` for the `istio` class; annotations gateway.istio.io/name-override, gateway.istio.io/service-account |
 * | Ports | status-port 15021, then one per listener port (Service ports) |
 * | ServiceType | class default, annotation networking.istio.io/service-type |
 * | InfrastructureLabels / Annotations | spec.infrastructure, else the Gateway's own; `istio.io/dataplane-mode: none` on non-waypoints |
 * | ProxyImage, AgentgatewayImage, ProxyConfig, MeshConfig, Values | the config, as for sidecars |
 */
import type { LoadedConfig } from '../config/types.js';
import { GO_OBJECT, GoNumber, NO_FIELD, type GoFunc, type GoObject } from '../template/value.js';
import { cloneJson, isPlainObject, type JsonObject } from '../util/json.js';
import { revisionOf } from '../inject/data.js';
import { viewAs } from './go-struct.js';
import type { MeshSettings } from './mesh-config.js';
import { agentgatewayImage, proxyImage } from './template-data.js';

/** One managed GatewayClass: the template it renders and the controller's defaults for it (classinfo.go). */
export interface GatewayClass {
  readonly template: string;
  readonly className: string;
  readonly controllerLabel: string;
  /** Only the default `istio` class names its objects `GATEWAY-CLASS`. */
  readonly nameSuffix: boolean;
  readonly serviceType: 'LoadBalancer' | 'ClusterIP';
}

export const GATEWAY_CLASSES: readonly GatewayClass[] = [
  { template: 'kube-gateway', className: 'istio', controllerLabel: 'istio.io-gateway-controller', nameSuffix: true, serviceType: 'LoadBalancer' },
  { template: 'waypoint', className: 'istio-waypoint', controllerLabel: 'istio.io-mesh-controller', nameSuffix: false, serviceType: 'ClusterIP' },
  { template: 'agentgateway', className: 'istio-agentgateway', controllerLabel: 'istio.io-gateway-controller', nameSuffix: false, serviceType: 'LoadBalancer' },
  {
    template: 'agentgateway-waypoint',
    className: 'istio-agentgateway-waypoint',
    controllerLabel: 'istio.io-agentgateway-waypoint-controller',
    nameSuffix: false,
    serviceType: 'ClusterIP',
  },
];

/** The Kubernetes minor version the controller passes as `.KubeVersion` (it asks the API server; the check has none): the e2e cluster's. */
const CHECK_KUBE_VERSION = 136;

/** Istio's default proxy UID and GID (the controller's GetProxyIDs without an OpenShift namespace). */
const DEFAULT_PROXY_ID = 1337;

type Obj = Record<string, unknown>;

/** A field of a Go struct value, computed on first read. */
interface Field {
  readonly name: string;
  readonly get: () => unknown;
}

/**
 * A Go struct with embedded structs. Go promotes an embedded struct's fields, the shallowest
 * first; every struct here embeds along one chain (and Gateway's TypeMeta and ObjectMeta share
 * no field name), so looking in own fields first and then in each embedded one is Go's order.
 */
class EmbeddingStruct implements GoObject {
  readonly [GO_OBJECT] = true as const;
  readonly #cache = new Map<string, unknown>();

  constructor(
    readonly goType: string,
    private readonly fields: readonly Field[],
    private readonly embedded: readonly string[],
  ) {}

  getField(name: string): unknown {
    if (this.#cache.has(name)) return this.#cache.get(name);
    let value: unknown = NO_FIELD;
    const own = this.fields.find((f) => f.name === name);
    if (own !== undefined) value = own.get();
    else {
      for (const e of this.embedded) {
        const inner = this.getField(e) as GoObject;
        value = inner.getField(name);
        if (value !== NO_FIELD) break;
      }
    }
    if (value !== NO_FIELD) this.#cache.set(name, value);
    return value;
  }

  getMethod(): GoFunc | undefined {
    return undefined;
  }

  fieldNames(): readonly string[] {
    return this.fields.map((f) => f.name);
  }

  /** encoding/json inlines embedded structs. */
  toJSON(): unknown {
    const out: Obj = {};
    for (const f of this.fields) {
      const v = this.getField(f.name) as { toJSON?: () => unknown } | null;
      const json = typeof v === 'object' && v !== null && typeof v.toJSON === 'function' ? v.toJSON() : v;
      if (this.embedded.includes(f.name) && isPlainObject(json)) Object.assign(out, json);
      else out[f.name] = json;
    }
    return out;
  }
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strMap = (v: unknown): Record<string, string> => {
  const out: Record<string, string> = {};
  if (isPlainObject(v)) for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
};

/** `*v1.Gateway`: TypeMeta and ObjectMeta embedded, then Spec and Status. */
function gatewayStruct(gw: JsonObject): EmbeddingStruct {
  return new EmbeddingStruct(
    '*v1.Gateway',
    [
      { name: 'TypeMeta', get: () => viewAs('v1.TypeMeta', gw) },
      { name: 'ObjectMeta', get: () => viewAs('v1.ObjectMeta', gw.metadata) },
      { name: 'Spec', get: () => viewAs('v1.GatewaySpec', gw.spec) },
      { name: 'Status', get: () => viewAs('v1.GatewayStatus', isPlainObject(gw.status) ? gw.status : {}) },
    ],
    ['TypeMeta', 'ObjectMeta'],
  );
}

/** The Service ports the controller derives: status-port, then each listener port once (extractServicePorts). */
export function gatewayServicePorts(gw: JsonObject): JsonObject[] {
  const ports: JsonObject[] = [{ name: 'status-port', protocol: 'TCP', appProtocol: 'tcp', port: 15021 }];
  const spec = isPlainObject(gw.spec) ? gw.spec : {};
  const seen = new Set<number>();
  const used = new Set(['status-port']);
  const listeners = Array.isArray(spec.listeners) ? spec.listeners : [];
  listeners.forEach((l, i) => {
    if (!isPlainObject(l) || typeof l.port !== 'number' || seen.has(l.port)) return;
    seen.add(l.port);
    const protocol = str(l.protocol).toLowerCase();
    let name = str(l.name).replaceAll('.', '-').slice(0, 63);
    if (name === '') name = `${protocol}-${i}`;
    // Two listener names can sanitise alike: the port number tells them apart (uniquePortName).
    let candidate = name;
    for (let suffix = `-${l.port}`; used.has(candidate); suffix += 'x') candidate = name.slice(0, 63 - suffix.length) + suffix;
    used.add(candidate);
    ports.push({ name: candidate, protocol: 'TCP', appProtocol: protocol, port: l.port });
  });
  return ports;
}

/** Labels or annotations for the generated objects: spec.infrastructure's (minus gateway.networking.k8s.io/ keys), else the Gateway's. */
function infrastructure(gw: JsonObject, which: 'labels' | 'annotations'): Record<string, string> {
  const spec = isPlainObject(gw.spec) ? gw.spec : {};
  const infra = isPlainObject(spec.infrastructure) ? spec.infrastructure : undefined;
  if (infra !== undefined && isPlainObject(infra[which])) {
    const out = strMap(infra[which]);
    for (const k of Object.keys(out)) if (k.startsWith('gateway.networking.k8s.io/')) delete out[k];
    return out;
  }
  const meta = isPlainObject(gw.metadata) ? gw.metadata : {};
  return strMap(meta[which]);
}

export interface GatewayDataInput {
  config: Pick<LoadedConfig, 'values' | 'nativeSidecars'>;
  mesh: MeshSettings;
  gatewayClass: GatewayClass;
}

/** What the controller derives for one Gateway: TemplateInput's fields and the images (also what the Go reference renderer is given). */
export interface GatewayDerived {
  GatewayClass: string;
  DeploymentName: string;
  ServiceAccount: string;
  Ports: JsonObject[];
  ServiceType: string;
  ClusterID: string;
  KubeVersion: number;
  Revision: string;
  NativeSidecars: boolean;
  ProxyUID: number;
  ProxyGID: number;
  CompliancePolicy: string;
  InfrastructureLabels: Record<string, string>;
  InfrastructureAnnotations: Record<string, string>;
  GatewayNameLabel: string;
  IsEastWestGateway: boolean;
  ControllerLabel: string;
  ProxyImage: string;
  AgentgatewayImage: string;
}

export function gatewayDerived(gw: JsonObject, input: GatewayDataInput): GatewayDerived {
  const { config, gatewayClass } = input;
  const meta = isPlainObject(gw.metadata) ? gw.metadata : {};
  const annotations = strMap(meta.annotations);
  const labels = strMap(meta.labels);
  const name = str(meta.name);
  const defaultName = gatewayClass.nameSuffix ? `${name}-${gatewayClass.className}` : name;
  const global = isPlainObject(config.values.global) ? config.values.global : {};
  const multi = isPlainObject(global.multiCluster) ? global.multiCluster : {};
  const infraLabels = infrastructure(gw, 'labels');
  const waypoint = gatewayClass.className.includes('waypoint');
  // setLabelOverrides: a non-waypoint gateway stays out of ambient unless it says otherwise.
  if (!waypoint && !Object.hasOwn(labels, 'istio.io/dataplane-mode') && !Object.hasOwn(infraLabels, 'istio.io/dataplane-mode'))
    infraLabels['istio.io/dataplane-mode'] = 'none';
  if (waypoint && !Object.hasOwn(labels, 'topology.istio.io/network') && str(global.network) !== '')
    infraLabels['topology.istio.io/network'] = str(global.network);
  return {
    GatewayClass: gatewayClass.className,
    DeploymentName: annotations['gateway.istio.io/name-override'] ?? defaultName,
    ServiceAccount: annotations['gateway.istio.io/service-account'] ?? defaultName,
    Ports: gatewayServicePorts(gw),
    ServiceType: annotations['networking.istio.io/service-type'] ?? gatewayClass.serviceType,
    ClusterID: str(multi.clusterName) || 'Kubernetes',
    KubeVersion: CHECK_KUBE_VERSION,
    Revision: revisionOf(config),
    NativeSidecars: config.nativeSidecars,
    ProxyUID: DEFAULT_PROXY_ID,
    ProxyGID: DEFAULT_PROXY_ID,
    CompliancePolicy: str(global.compliancePolicy),
    InfrastructureLabels: infraLabels,
    InfrastructureAnnotations: infrastructure(gw, 'annotations'),
    GatewayNameLabel: 'gateway.networking.k8s.io/gateway-name',
    IsEastWestGateway: false,
    ControllerLabel: gatewayClass.controllerLabel,
    ProxyImage: proxyImage(config.values, input.mesh.proxy, annotations, 'proxy'),
    AgentgatewayImage: agentgatewayImage(config.values, input.mesh.proxy, annotations),
  };
}

/** `.` for a gateway deployment template rendering `gw` (a Gateway API Gateway, as JSON). */
export function gatewayTemplateData(gw: JsonObject, input: GatewayDataInput): GoObject {
  const d = gatewayDerived(gw, input);
  const int64 = (n: number) => new GoNumber('int64', BigInt(n));
  const templateInput = new EmbeddingStruct(
    'gatewaycommon.TemplateInput',
    [
      { name: 'Gateway', get: () => gatewayStruct(gw) },
      { name: 'GatewayClass', get: () => d.GatewayClass },
      { name: 'DeploymentName', get: () => d.DeploymentName },
      { name: 'ServiceAccount', get: () => d.ServiceAccount },
      { name: 'Ports', get: () => viewAs('[]v1.ServicePort', d.Ports) },
      { name: 'ServiceType', get: () => d.ServiceType },
      { name: 'ClusterID', get: () => d.ClusterID },
      { name: 'KubeVersion', get: () => BigInt(d.KubeVersion) },
      { name: 'Revision', get: () => d.Revision },
      { name: 'NativeSidecars', get: () => d.NativeSidecars },
      { name: 'ProxyUID', get: () => int64(d.ProxyUID) },
      { name: 'ProxyGID', get: () => int64(d.ProxyGID) },
      { name: 'CompliancePolicy', get: () => d.CompliancePolicy },
      { name: 'InfrastructureLabels', get: () => viewAs('map[string]string', d.InfrastructureLabels) },
      { name: 'InfrastructureAnnotations', get: () => viewAs('map[string]string', d.InfrastructureAnnotations) },
      { name: 'GatewayNameLabel', get: () => d.GatewayNameLabel },
      { name: 'IsEastWestGateway', get: () => d.IsEastWestGateway },
      { name: 'ControllerLabel', get: () => d.ControllerLabel },
    ],
    ['Gateway'],
  );
  return new EmbeddingStruct(
    'gatewaycommon.derivedInput',
    [
      { name: 'TemplateInput', get: () => templateInput },
      { name: 'ProxyImage', get: () => d.ProxyImage },
      { name: 'AgentgatewayImage', get: () => d.AgentgatewayImage },
      { name: 'ProxyConfig', get: () => input.mesh.proxyObject },
      { name: 'MeshConfig', get: () => input.mesh.meshObject },
      // A private copy: a template's `set` must not reach the config or the next render.
      { name: 'Values', get: () => cloneJson(input.config.values) },
    ],
    ['TemplateInput'],
  );
}
