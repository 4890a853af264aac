/**
 * @module install/workload
 * The server's Deployment, its Service and PodDisruptionBudget: two replicas spread over nodes
 * and zones, a PDB so a drain never takes both, rolling updates that never go below the
 * replica count, HTTPS probes against the webhook listener itself, and a restricted-PSS
 * security context (non-root, read-only root filesystem, no capabilities, RuntimeDefault
 * seccomp). The container runs `serve` with the mounted Secret and ConfigMap (both hot-reloaded).
 */
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { Service } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { metadata, commonLabels, selectorLabels, type InstallContext } from './install-context.js';
import { reconcileName } from './reconcile-rbac.js';
import { CONFIG_MOUNT, RUN_AS_USER, TLS_MOUNT, servedSecretName, tlsSecretName } from './options.js';
import { needsToken } from './base-objects.js';

/** The `serve` command line; flags as defined in src/cli/serve.ts. */
function serveArgs(ctx: InstallContext): string[] {
  const o = ctx.options;
  const secret = servedSecretName(o);
  const tls = secret === undefined ? ['--tls-dir', TLS_MOUNT] : ['--tls-secret', secret, ...provisionArgs(ctx)];
  const args = ['serve', '--port', String(o.port), ...tls, '--config', CONFIG_MOUNT, '--monitoring-port', String(o.monitoringPort)];
  if (o.revision !== '') args.push('--revision', o.revision);
  if (o.caBundleReconcile) args.push('--webhook-config', o.name);
  args.push('--on-error', o.onError, '--log-level', o.logLevel, '--drain-delay', String(o.drainDelaySeconds));
  if (o.reconcile) {
    args.push(
      '--reconcile',
      ...(o.reconcileRestart ? ['--reconcile-restart'] : []),
      '--reconcile-lease',
      reconcileName(o.name),
      '--reconcile-webhook-config',
      o.name,
    );
  }
  return args;
}

/** `--tls-provision` and the lifetimes given; the cluster domain only when it is not the default. */
function provisionArgs(ctx: InstallContext): string[] {
  const o = ctx.options;
  if (o.certMode !== 'provision') return [];
  return [
    '--tls-provision',
    o.name,
    ...(o.tlsCaValidity !== undefined ? ['--tls-ca-validity', o.tlsCaValidity] : []),
    ...(o.tlsCertValidity !== undefined ? ['--tls-cert-validity', o.tlsCertValidity] : []),
    ...(o.clusterDomain !== 'cluster.local' ? ['--cluster-domain', o.clusterDomain] : []),
  ];
}

/** The pod's own name, namespace and uid, so the server can put Events on it (why it is not ready). */
const POD_ENV = [
  { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
  { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
  { name: 'POD_UID', valueFrom: { fieldRef: { fieldPath: 'metadata.uid' } } },
];

export function deployment(ctx: InstallContext): Deployment {
  const o = ctx.options;
  // Read through the API (serve --tls-secret), the Secret is not mounted: a missing one is a reason in /readyz, not a FailedMount hang.
  const mounted = servedSecretName(o) === undefined;
  const selector = selectorLabels(ctx);
  const probe = (path: string, period: number, failures: number) => ({
    httpGet: { path, port: 'https', scheme: 'HTTPS' },
    periodSeconds: period,
    timeoutSeconds: 2,
    failureThreshold: failures,
  });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: metadata(ctx, o.name),
    spec: {
      replicas: o.replicas,
      selector: { matchLabels: selector },
      // Never fewer ready replicas than asked for during a rollout.
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      template: {
        metadata: {
          labels: {
            ...commonLabels(ctx),
            // Our own pods are never injected, even if the namespace exclusion were removed.
            [ctx.keys.inject]: 'false',
          },
          annotations: {
            'prometheus.io/scrape': 'true',
            'prometheus.io/port': String(o.monitoringPort),
            'prometheus.io/path': '/metrics',
          },
        },
        spec: {
          serviceAccountName: o.name,
          automountServiceAccountToken: needsToken(ctx),
          enableServiceLinks: false,
          ...(o.priorityClassName !== undefined ? { priorityClassName: o.priorityClassName } : {}),
          // drain delay + serve's 15 s in-flight grace, with margin.
          terminationGracePeriodSeconds: o.drainDelaySeconds + 25,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: RUN_AS_USER,
            runAsGroup: RUN_AS_USER,
            fsGroup: RUN_AS_USER,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          affinity: {
            podAntiAffinity: {
              // Preferred, not required: a one-node cluster (kind) must still run both replicas.
              preferredDuringSchedulingIgnoredDuringExecution: [
                { weight: 100, podAffinityTerm: { labelSelector: { matchLabels: selector }, topologyKey: 'kubernetes.io/hostname' } },
              ],
            },
          },
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: selector } },
          ],
          containers: [
            {
              name: 'sidecar-injector',
              image: o.image,
              imagePullPolicy: o.imagePullPolicy,
              args: serveArgs(ctx),
              ...(mounted ? {} : { env: POD_ENV }),
              ports: [
                { name: 'https', containerPort: o.port, protocol: 'TCP' },
                { name: 'http-monitoring', containerPort: o.monitoringPort, protocol: 'TCP' },
              ],
              readinessProbe: probe('/readyz', 5, 2),
              livenessProbe: { ...probe('/healthz', 10, 3), initialDelaySeconds: 5 },
              resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } },
              securityContext: {
                allowPrivilegeEscalation: false,
                privileged: false,
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                capabilities: { drop: ['ALL'] },
                seccompProfile: { type: 'RuntimeDefault' },
              },
              volumeMounts: [
                ...(mounted ? [{ name: 'tls', mountPath: TLS_MOUNT, readOnly: true }] : []),
                { name: 'config', mountPath: CONFIG_MOUNT, readOnly: true },
                { name: 'tmp', mountPath: '/tmp' },
              ],
            },
          ],
          volumes: [
            ...(mounted ? [{ name: 'tls', secret: { secretName: tlsSecretName(o.name) } }] : []),
            { name: 'config', configMap: { name: o.name } },
            { name: 'tmp', emptyDir: { sizeLimit: '16Mi' } },
          ],
        },
      },
    },
  };
}

export function service(ctx: InstallContext): Service {
  const o = ctx.options;
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadata(ctx, o.name),
    spec: {
      type: 'ClusterIP',
      selector: selectorLabels(ctx),
      ports: [
        { name: 'https-webhook', port: 443, targetPort: 'https', protocol: 'TCP' },
        { name: 'http-monitoring', port: o.monitoringPort, targetPort: 'http-monitoring', protocol: 'TCP' },
      ],
    },
  };
}

/** Only with two or more replicas: with one, minAvailable 1 would block every node drain. */
export function podDisruptionBudget(ctx: InstallContext): PodDisruptionBudget | undefined {
  if (ctx.options.replicas < 2) return undefined;
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: metadata(ctx, ctx.options.name),
    spec: { minAvailable: 1, selector: { matchLabels: selectorLabels(ctx) } },
  };
}
