/**
 * @module istio/template-data
 * Istio's SidecarTemplateData, field for field, so Istio's own templates run unchanged: the
 * Istio profile's `templateFields` hook puts these around the core's fields (inject/data.ts:
 * Values, Revision, NativeSidecars) in Istio's declaration order. Pod parts are Go struct views
 * (Go field names, zero values, typed maps: see go-struct.ts); `.ProxyConfig` / `.MeshConfig`
 * are protobuf views (proto.ts).
 *
 * | field | Go type | from |
 * |---|---|---|
 * | TypeMeta | metav1.TypeMeta | the workload (ctx.owner) or the pod's controller (deploy-meta.ts) |
 * | DeploymentMeta | types.NamespacedName | the same |
 * | ObjectMeta, Spec | metav1.ObjectMeta, corev1.PodSpec | the pod, after stripping an earlier injection (namespace from the request when the pod has none) |
 * | ProxyConfig, MeshConfig | *meshconfig.ProxyConfig, *meshconfig.MeshConfig | values.meshConfig + annotation proxy.istio.io/config |
 * | ProxyImage, ProxyInitImage | string | Istio's ProxyImage rule: hub/image:tag[-imageType] |
 * | ProxyUID, ProxyGID | int64 | 1337 |
 * | InboundTrafficPolicyMode | string | meshConfig.inboundTrafficPolicy.mode: "localhost" or "passthrough" |
 * | CompliancePolicy | string | values.global.compliancePolicy (Istio reads istiod's COMPLIANCE_POLICY env) |
 */
import type { TemplateField, PodProfileInput } from '../inject/profile-hooks.js';
import { sprint } from '../template/index.js';
import { GoNumber } from '../template/value.js';
import { isPlainObject, type JsonObject } from '../util/json.js';
import { deployMetaOf } from './deploy-meta.js';
import { viewAs } from './go-struct.js';
import type { ProtoMessage } from './proto.js';

/** Istio's default proxy UID/GID (OpenShift namespaces may change it in Istio; not here). */
const DEFAULT_PROXY_ID = 1337n;

export interface IstioDataInput {
  /** The config's values (read, never modified). */
  values: JsonObject;
  proxyConfig: ProtoMessage;
  proxyConfigJson: Readonly<Record<string, unknown>>;
  meshConfig: ProtoMessage;
  inboundTrafficPolicyMode: string;
}

/** Istio's fields around the core's (`core`: Values, Revision, NativeSidecars), in Istio's order. */
export function istioTemplateFields(core: readonly TemplateField[], pod: PodProfileInput, input: IstioDataInput): TemplateField[] {
  const { values } = input;
  const annotations = pod.annotations;
  let meta: ReturnType<typeof deployMetaOf> | undefined;
  const deployMeta = () => (meta ??= deployMetaOf(pod.pod, pod.namespace, pod.owner));
  return [
    { name: 'TypeMeta', get: () => viewAs('v1.TypeMeta', deployMeta().typeMeta) },
    { name: 'DeploymentMeta', get: () => viewAs('types.NamespacedName', deployMeta().deployMeta) },
    {
      name: 'ObjectMeta',
      get: () => {
        const m = pod.pod.metadata ?? {};
        return viewAs('v1.ObjectMeta', typeof m.namespace === 'string' && m.namespace !== '' ? m : { ...m, namespace: pod.namespace });
      },
    },
    { name: 'Spec', get: () => viewAs('v1.PodSpec', pod.pod.spec) },
    { name: 'ProxyConfig', get: () => input.proxyConfig },
    { name: 'MeshConfig', get: () => input.meshConfig, perConfig: true },
    ...core,
    { name: 'ProxyImage', get: () => proxyImage(values, input.proxyConfigJson, annotations, 'proxy') },
    { name: 'ProxyInitImage', get: () => proxyImage(values, input.proxyConfigJson, annotations, 'proxy_init') },
    { name: 'ProxyUID', get: () => new GoNumber('int64', DEFAULT_PROXY_ID), perConfig: true },
    { name: 'ProxyGID', get: () => new GoNumber('int64', DEFAULT_PROXY_ID), perConfig: true },
    { name: 'InboundTrafficPolicyMode', get: () => input.inboundTrafficPolicyMode, perConfig: true },
    {
      name: 'CompliancePolicy',
      perConfig: true,
      get: () => {
        const g = values.global;
        return isPlainObject(g) && typeof g.compliancePolicy === 'string' ? g.compliancePolicy : '';
      },
    },
  ];
}

const KNOWN_IMAGE_TYPES = ['distroless', 'debug'];

/**
 * Istio's ProxyImage: `<hub>/<image>:<tag>` with the image type (proxy config `image.imageType`,
 * overridden by annotation `sidecar.istio.io/proxyImageType`) replacing a known `-distroless` /
 * `-debug` tag suffix; type `default` means no suffix. `which` picks global.proxy.image (default
 * proxyv2) or global.proxy_init.image (default proxyv2).
 */
export function proxyImage(
  values: JsonObject,
  proxyConfig: Readonly<Record<string, unknown>>,
  podAnnotations: Readonly<Record<string, unknown>>,
  which: 'proxy' | 'proxy_init',
): string {
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

/**
 * Istio's AgentgatewayImage: `<hub>/agentgateway:<tag>`, the image type from values.global.variant,
 * replaced by the proxy config's `image.imageType` when it has an image, then by annotation
 * `gateway.istio.io/agentgatewayImage` (which Istio reads as the type, not the image).
 */
export function agentgatewayImage(values: JsonObject, proxyConfig: Readonly<Record<string, unknown>>, annotations: Readonly<Record<string, unknown>>): string {
  const global = isPlainObject(values.global) ? values.global : {};
  const hub = typeof global.hub === 'string' ? global.hub : '';
  const tag = global.tag === undefined || global.tag === null ? '' : sprint([global.tag]);
  let imageType = typeof global.variant === 'string' ? global.variant : '';
  if (isPlainObject(proxyConfig.image)) imageType = typeof proxyConfig.image.imageType === 'string' ? proxyConfig.image.imageType : '';
  const fromAnnotation = annotations['gateway.istio.io/agentgatewayImage'];
  if (typeof fromAnnotation === 'string') imageType = fromAnnotation;
  return `${hub}/agentgateway:${withImageType(tag, imageType)}`;
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
