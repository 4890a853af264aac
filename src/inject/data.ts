/**
 * @module inject/data
 * The data templates render with: Istio's SidecarTemplateData, field for field, so Istio's own
 * templates run unchanged. Pod parts are Go struct views (Go field names, zero values, typed
 * maps: see go-struct.ts); `.ProxyConfig` / `.MeshConfig` are protobuf views (proto.ts);
 * `.Values` is the config's values as JSON data. Fields are computed when a template first
 * reads them.
 *
 * | field | Go type | from |
 * |---|---|---|
 * | TypeMeta | metav1.TypeMeta | the workload (ctx.owner) or the pod's controller (deploy-meta.ts) |
 * | DeploymentMeta | types.NamespacedName | the same |
 * | ObjectMeta, Spec | metav1.ObjectMeta, corev1.PodSpec | the pod, after stripping an earlier injection (namespace from the request when the pod has none) |
 * | ProxyConfig, MeshConfig | *meshconfig.ProxyConfig, *meshconfig.MeshConfig | values.meshConfig + annotation proxy.istio.io/config |
 * | Values | map[string]interface {} | config values (a private copy when a template may modify it) |
 * | Revision | string | values.revision |
 * | NativeSidecars | bool | config nativeSidecars |
 * | ProxyImage, ProxyInitImage | string | Istio's ProxyImage rule: hub/image:tag[-imageType] |
 * | ProxyUID, ProxyGID | int64 | 1337 |
 * | InboundTrafficPolicyMode | string | meshConfig.inboundTrafficPolicy.mode: "localhost" or "passthrough" |
 * | CompliancePolicy | string | values.global.compliancePolicy (Istio reads istiod's COMPLIANCE_POLICY env) |
 */
import type { LoadedConfig } from '../config/types.js';
import { sprint } from '../template/index.js';
import { GO_OBJECT, GoNumber, NO_FIELD, type GoFunc, type GoObject } from '../template/value.js';
import { cloneJson, isPlainObject, type JsonObject } from '../util/json.js';
import type { DeployMeta } from './deploy-meta.js';
import { viewAs } from './go-struct.js';
import './k8s-structs.js';
import type { ProtoMessage } from './proto.js';

/** Istio's default proxy UID/GID (OpenShift namespaces may change it in Istio; not here). */
export const DEFAULT_PROXY_ID = 1337n;

const FIELDS = [
  'TypeMeta', 'DeploymentMeta', 'ObjectMeta', 'Spec', 'ProxyConfig', 'MeshConfig', 'Values', 'Revision', 'NativeSidecars',
  'ProxyImage', 'ProxyInitImage', 'ProxyUID', 'ProxyGID', 'InboundTrafficPolicyMode', 'CompliancePolicy',
] as const;

export interface TemplateDataInput {
  pod: JsonObject;
  /** The pod's namespace, or the request's when the pod has none (Istio fills it in the same way). */
  namespace: string;
  meta: DeployMeta;
  proxyConfig: ProtoMessage;
  proxyConfigJson: Readonly<Record<string, unknown>>;
  meshConfig: ProtoMessage;
  inboundTrafficPolicyMode: string;
  config: LoadedConfig;
  /** Give templates their own copy of the values (some template may modify it with `set`). */
  cloneValues: boolean;
}

/** `*inject.SidecarTemplateData`: what `.` is at the top of every injection template. */
export class TemplateData implements GoObject {
  readonly [GO_OBJECT] = true as const;
  readonly goType = '*inject.SidecarTemplateData';
  #cache = new Map<string, unknown>();

  constructor(private readonly input: TemplateDataInput) {}

  getField(name: string): unknown {
    if (!(FIELDS as readonly string[]).includes(name)) return NO_FIELD;
    if (this.#cache.has(name)) return this.#cache.get(name);
    const v = this.compute(name as (typeof FIELDS)[number]);
    this.#cache.set(name, v);
    return v;
  }

  getMethod(): GoFunc | undefined {
    return undefined;
  }

  fieldNames(): readonly string[] {
    return FIELDS;
  }

  toJSON(): unknown {
    const out: Record<string, unknown> = {};
    for (const f of FIELDS) {
      const v = this.getField(f);
      out[f] = typeof v === 'object' && v !== null && 'toJSON' in v ? (v as { toJSON(): unknown }).toJSON() : v;
    }
    return out;
  }

  private compute(name: (typeof FIELDS)[number]): unknown {
    const { pod, meta, config } = this.input;
    const values = config.values;
    switch (name) {
      case 'TypeMeta':
        return viewAs('v1.TypeMeta', meta.typeMeta);
      case 'DeploymentMeta':
        return viewAs('types.NamespacedName', meta.deployMeta);
      case 'ObjectMeta': {
        const meta = isPlainObject(pod.metadata) ? pod.metadata : {};
        const ns = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta : { ...meta, namespace: this.input.namespace };
        return viewAs('v1.ObjectMeta', ns);
      }
      case 'Spec':
        return viewAs('v1.PodSpec', pod.spec);
      case 'ProxyConfig':
        return this.input.proxyConfig;
      case 'MeshConfig':
        return this.input.meshConfig;
      case 'Values':
        return this.input.cloneValues ? cloneJson(values) : values;
      case 'Revision':
        return revisionOf(config);
      case 'NativeSidecars':
        return config.nativeSidecars;
      case 'ProxyImage':
        return proxyImage(values, this.input.proxyConfigJson, annotations(pod), 'proxy');
      case 'ProxyInitImage':
        return proxyImage(values, this.input.proxyConfigJson, annotations(pod), 'proxy_init');
      case 'ProxyUID':
      case 'ProxyGID':
        return new GoNumber('int64', DEFAULT_PROXY_ID);
      case 'InboundTrafficPolicyMode':
        return this.input.inboundTrafficPolicyMode;
      case 'CompliancePolicy': {
        const g = values.global;
        return isPlainObject(g) && typeof g.compliancePolicy === 'string' ? g.compliancePolicy : '';
      }
    }
  }
}

/** The revision this injector serves: values.revision ("" for the default revision). */
export function revisionOf(config: Pick<LoadedConfig, 'values'>): string {
  const r = config.values.revision;
  return typeof r === 'string' ? r : '';
}

function annotations(pod: JsonObject): Record<string, unknown> {
  const meta = pod.metadata;
  return isPlainObject(meta) && isPlainObject(meta.annotations) ? meta.annotations : {};
}

const KNOWN_IMAGE_TYPES = ['distroless', 'debug'];

/**
 * Istio's ProxyImage: `<hub>/<image>:<tag>` with the image type (proxy config `image.imageType`,
 * overridden by annotation `sidecar.istio.io/proxyImageType`) replacing a known `-distroless` /
 * `-debug` tag suffix; type `default` means no suffix. `which` picks global.proxy.image (default
 * proxyv2) or global.proxy_init.image (default proxyv2).
 */
export function proxyImage(values: JsonObject, proxyConfig: Readonly<Record<string, unknown>>, podAnnotations: Record<string, unknown>, which: 'proxy' | 'proxy_init'): string {
  const global = isPlainObject(values.global) ? values.global : {};
  const hub = typeof global.hub === 'string' ? global.hub : '';
  const tag = global.tag === undefined || global.tag === null ? '' : sprint([global.tag]);
  const part = global[which];
  const image = isPlainObject(part) && typeof part.image === 'string' && part.image !== '' ? part.image : 'proxyv2';
  let imageType = isPlainObject(proxyConfig.image) && typeof proxyConfig.image.imageType === 'string' ? proxyConfig.image.imageType : '';
  const fromAnnotation = podAnnotations['sidecar.istio.io/proxyImageType'];
  if (typeof fromAnnotation === 'string') imageType = fromAnnotation;
  return `${hub}/${image}:${withImageType(tag, imageType)}`;
}

function withImageType(tag: string, imageType: string): string {
  if (imageType === '') return tag;
  for (const t of KNOWN_IMAGE_TYPES) {
    if (tag.endsWith(`-${t}`)) {
      tag = tag.slice(0, tag.length - t.length - 1);
      break;
    }
  }
  return imageType === 'default' ? tag : `${tag}-${imageType}`;
}

/** Functions that modify a map or list argument in place: templates using them get their own values. */
/** Template functions that write into a map they are given (Sprig's, must- variants included). */
const MUTATING = /\b(set|unset|merge|mergeOverwrite|mustMerge|mustMergeOverwrite|push)\b/;

const MUTATES = new WeakMap<object, boolean>();

/** Whether any of the config's templates might modify `.Values` (decided once per config). */
export function templatesMayMutate(config: LoadedConfig): boolean {
  let m = MUTATES.get(config);
  if (m === undefined) {
    m = Object.values(config.templates).some((text) => MUTATING.test(text));
    MUTATES.set(config, m);
  }
  return m;
}
