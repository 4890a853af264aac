/**
 * @module check/gateways
 * What `config check` renders Istio's gateway templates for, instead of application pods:
 * - each gateway deployment template (`kube-gateway`, `waypoint`, ...) for two Gateways of the
 *   class that uses it: a plain one, and one with infrastructure labels and annotations, a
 *   service-type, a service account and a name override;
 * - the `gateway` injection template for a gateway pod as Istio documents it (a container
 *   `istio-proxy` with `image: auto`, the template named by `inject.istio.io/templates`).
 */
import type { GatewayClass } from '../istio/gateway-data.js';
import type { JsonObject } from '../util/json.js';
import type { CheckPod } from './pods.js';

export interface CheckGateway {
  /** Short name used in the report. */
  name: string;
  gateway: JsonObject;
}

/** Istio's injection template for gateway pods (gateway-injection-template.yaml). */
export const GATEWAY_INJECTION_TEMPLATE = 'gateway';

export function representativeGateways(cls: GatewayClass): CheckGateway[] {
  const waypoint = cls.className.includes('waypoint');
  const listeners: JsonObject[] = waypoint
    ? [{ name: 'mesh', port: 15008, protocol: 'HBONE' }]
    : [
        { name: 'http', port: 80, protocol: 'HTTP' },
        { name: 'https.example', hostname: '*.example.com', port: 443, protocol: 'HTTPS', tls: { mode: 'Terminate', certificateRefs: [{ name: 'cert' }] } },
      ];
  const gateway = (name: string, metadata: JsonObject, spec: JsonObject): JsonObject => ({
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name, namespace: 'check', uid: '00000000-0000-4000-8000-000000000001', ...metadata },
    spec: { gatewayClassName: cls.className, listeners, ...spec },
  });
  const name = waypoint ? 'waypoint' : 'gateway';
  return [
    { name: 'plain', gateway: gateway(name, waypoint ? { labels: { 'istio.io/waypoint-for': 'service' } } : {}, {}) },
    {
      name: 'with infrastructure and overrides',
      gateway: gateway(
        `${name}-custom`,
        {
          annotations: {
            'networking.istio.io/service-type': 'ClusterIP',
            'gateway.istio.io/service-account': 'custom-sa',
            'gateway.istio.io/name-override': 'custom-deployment',
          },
        },
        { infrastructure: { labels: { team: 'payments' }, annotations: { 'example.com/owner': 'payments' } } },
      ),
    },
  ];
}

/** The gateway pod Istio's `gateway` injection template is for. */
export function gatewayPod(keys: { inject: string; templates: string }): CheckPod {
  return {
    name: 'gateway pod',
    pod: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'ingressgateway',
        namespace: 'check',
        labels: { istio: 'ingressgateway', app: 'istio-ingressgateway' },
        annotations: { [keys.inject]: 'true', [keys.templates]: GATEWAY_INJECTION_TEMPLATE },
      },
      spec: { containers: [{ name: 'istio-proxy', image: 'auto' }] },
    },
  };
}
