/**
 * @module heal/serve-reconcile
 * What `serve --reconcile` adds to the webhook, loaded only with that flag (it brings the
 * Kubernetes client): a Lease-based leader election among the replicas; the leader runs the
 * PodReconciler (watch, classify, metrics, Events, optional restarts); every replica records
 * InjectionFailed Events for the pods its webhook refused or admitted without a sidecar.
 */
import { hostname } from 'node:os';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { LoadedConfig } from '../config/types.js';
import type { InjectionFailure } from '../admission/handler.js';
import { EventRecorder } from './events.js';
import type { ClusterApi } from '../kube/cluster-api.js';
import { connect } from '../kube/client.js';
import { LeaderElector } from './leader.js';
import { controllerOf } from './owners.js';
import { PodReconciler } from './pod-reconciler.js';
import type { WorkloadRef } from './types.js';
import { isPlainObject } from '../util/json.js';

export interface ReconcileServeOptions {
  registry: Registry;
  log(level: 'info' | 'warn', message: string, fields?: Record<string, unknown>): void;
  webhookConfig: string;
  injectorNamespace: string;
  namespaces: readonly string[];
  leaseName: string;
  /** Default: the current context's (in a pod: the service account's) namespace. */
  leaseNamespace?: string;
  restart: boolean;
  maxInFlight: number;
  restartTimeoutMs: number;
  /** For tests: a fake cluster. */
  api?: ClusterApi;
  leaseDurationMs?: number;
  retryPeriodMs?: number;
}

export interface ReconcileHandle {
  setConfig(config: LoadedConfig): void;
  injectionFailed(failure: InjectionFailure): void;
  readonly identity: string;
  stop(): Promise<void>;
}

export function startReconcile(options: ReconcileServeOptions): ReconcileHandle {
  const api = options.api ?? connect();
  const identity = process.env.POD_NAME ? process.env.POD_NAME : `${hostname()}_${process.pid}`;
  const recorder = new EventRecorder({ api, instance: identity, onError: (err) => options.log('warn', 'could not record an Event', { error: String(err) }) });
  const gauge = new Gauge({
    name: 'sidecar_injector_pods',
    help: 'Pods by sidecar state (current, stale, missing, skipped, foreign), as seen by the reconcile leader',
    labelNames: ['state'] as const,
    registers: [options.registry],
  });
  const leader = new Gauge({
    name: 'sidecar_injector_reconcile_leader',
    help: '1 while this replica holds the reconcile Lease',
    registers: [options.registry],
  });
  leader.set(0);
  const lists = new Counter({
    name: 'sidecar_injector_reconcile_lists_total',
    help: 'Lists the reconcile leader made, by resource and why: start, expired (410 Gone), error, resync (new config or webhook scopes), namespace-labels',
    labelNames: ['resource', 'reason'] as const,
    registers: [options.registry],
  });
  let config: LoadedConfig | undefined;
  const reconciler = new PodReconciler({
    api,
    getConfig: () => config,
    webhookConfig: options.webhookConfig,
    injectorNamespace: options.injectorNamespace,
    namespaces: options.namespaces,
    restart: options.restart,
    rollout: { maxInFlight: options.maxInFlight, intervalMs: 2000, timeoutMs: options.restartTimeoutMs },
    recorder,
    gauge,
    lists,
    log: options.log,
  });
  let leading = false;
  let retry: NodeJS.Timeout | undefined;
  const begin = (): void => {
    reconciler.start().catch((err: unknown) => {
      options.log('warn', 'reconcile could not start; retrying in 10 s', { error: err instanceof Error ? err.message : String(err) });
      void reconciler.stop();
      if (leading) retry = setTimeout(begin, 10_000);
    });
  };
  const elector = new LeaderElector({
    leases: api.leases,
    namespace: options.leaseNamespace ?? api.defaultNamespace,
    name: options.leaseName,
    identity,
    ...(options.leaseDurationMs !== undefined ? { leaseDurationMs: options.leaseDurationMs } : {}),
    ...(options.retryPeriodMs !== undefined ? { retryPeriodMs: options.retryPeriodMs } : {}),
    onStartedLeading: () => {
      leading = true;
      leader.set(1);
      begin();
    },
    onStoppedLeading: () => {
      leading = false;
      leader.set(0);
      clearTimeout(retry);
      void reconciler.stop();
    },
    log: options.log,
  });
  elector.start();

  const owners = new Map<string, WorkloadRef | undefined>();
  return {
    identity,
    setConfig(c) {
      config = c;
      if (leading) reconciler.configChanged();
    },
    injectionFailed(failure) {
      void workloadFor(api, failure, owners).then((on) => {
        const what = failure.action === 'denied' ? 'refused' : 'admitted without its sidecar';
        recorder.record(
          on,
          'InjectionFailed',
          `a pod was ${what}: ${failure.code}: ${failure.message}`,
          'Warning',
          `${failure.action}|${failure.code}|${failure.message}`,
        );
      });
    },
    async stop() {
      clearTimeout(retry);
      await elector.stop();
      await reconciler.stop();
      await recorder.flush();
      options.registry.removeSingleMetric('sidecar_injector_pods');
      options.registry.removeSingleMetric('sidecar_injector_reconcile_leader');
    },
  };
}

/** The workload a refused pod belongs to: its controller, through ReplicaSet/Job to Deployment/CronJob. */
async function workloadFor(api: ClusterApi, failure: InjectionFailure, cache: Map<string, WorkloadRef | undefined>): Promise<WorkloadRef> {
  const namespace = failure.namespace;
  const meta = isPlainObject(failure.object) && isPlainObject(failure.object.metadata) ? failure.object.metadata : {};
  const podName = typeof meta.name === 'string' && meta.name !== '' ? meta.name : typeof meta.generateName === 'string' ? meta.generateName : 'pod';
  const ref = controllerOf(failure.object);
  if (ref === undefined) return { kind: 'Pod', name: podName, namespace, apiVersion: 'v1' };
  const self: WorkloadRef = {
    kind: ref.kind,
    name: ref.name,
    namespace,
    ...(ref.apiVersion ? { apiVersion: ref.apiVersion } : {}),
    ...(ref.uid ? { uid: ref.uid } : {}),
  };
  const path =
    ref.kind === 'ReplicaSet'
      ? `/apis/apps/v1/namespaces/${namespace}/replicasets/${ref.name}`
      : ref.kind === 'Job'
        ? `/apis/batch/v1/namespaces/${namespace}/jobs/${ref.name}`
        : undefined;
  if (path === undefined) return self;
  const key = `${namespace}/${ref.kind}/${ref.name}`;
  if (!cache.has(key)) {
    if (cache.size > 1000) cache.clear();
    const parent = controllerOf(await api.find(path).catch(() => undefined));
    cache.set(
      key,
      parent === undefined
        ? undefined
        : {
            kind: parent.kind,
            name: parent.name,
            namespace,
            ...(parent.apiVersion ? { apiVersion: parent.apiVersion } : {}),
            ...(parent.uid ? { uid: parent.uid } : {}),
          },
    );
  }
  return cache.get(key) ?? self;
}
