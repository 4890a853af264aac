/**
 * @module istio/gateway-structs
 * Schemas of the Gateway API (sigs.k8s.io/gateway-api apis/v1) and corev1 Service structs that
 * Istio's gateway deployment templates read (`.Spec.Addresses`, `.Ports`), field order as in
 * gateway-api v1.4, for the struct views in go-struct.ts. The Gateway itself is embedded in the
 * templates' data (gateway-data.ts builds that struct by hand, with its metadata fields promoted).
 */
import { f, type StructSchema } from './k8s-structs.js';

export const GATEWAY_STRUCTS: readonly StructSchema[] = [
  {
    goType: 'v1.GatewaySpec',
    fields: [
      f('GatewayClassName', 'string'),
      f('Listeners', '[]v1.Listener'),
      f('Addresses', '[]v1.GatewaySpecAddress'),
      f('Infrastructure', '*v1.GatewayInfrastructure'),
      f('AllowedListeners', '*v1.AllowedListeners'),
      f('TLS', '*v1.GatewayTLSConfig', 'tls'),
      f('DefaultScope', 'string'),
    ],
  },
  {
    goType: 'v1.Listener',
    fields: [
      f('Name', 'string'),
      f('Hostname', '*string'),
      f('Port', 'int32'),
      f('Protocol', 'string'),
      f('TLS', '*v1.ListenerTLSConfig', 'tls'),
      f('AllowedRoutes', '*v1.AllowedRoutes'),
    ],
  },
  { goType: 'v1.GatewaySpecAddress', fields: [f('Type', '*string'), f('Value', 'string')] },
  {
    goType: 'v1.GatewayInfrastructure',
    fields: [f('Labels', 'map[string]string'), f('Annotations', 'map[string]string'), f('ParametersRef', '*v1.LocalParametersReference')],
  },
  { goType: 'v1.LocalParametersReference', fields: [f('Group', 'string'), f('Kind', 'string'), f('Name', 'string')] },
  {
    goType: 'v1.ServicePort',
    fields: [
      f('Name', 'string'),
      f('Protocol', 'string'),
      f('AppProtocol', '*string'),
      f('Port', 'int32'),
      f('TargetPort', 'intstr.IntOrString'),
      f('NodePort', 'int32'),
    ],
  },
];
