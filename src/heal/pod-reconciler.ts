/**
 * @module heal/pod-reconciler
 * `serve --reconcile`, the leader's work: watch pods, namespaces, ReplicaSets and Jobs
 * (informers: paginated lists, then watches that resume), classify every pod with the same
 * function as `status`, export the counts as `sidecar_injector_pods{state}`, record
 * SidecarMissing/SidecarStale Events on the workloads and, with `--reconcile-restart`, restart
 * them under the same limits as `restart`, then record SidecarRestarted. A restarted workload
 * is not restarted again within `restartCooldownMs` (its old pods stay until the rollout ends).
 *
 * It runs inside the webhook's process, so it must stay small and never hold the event loop:
 * - a pod is classified as it arrives and only its record is kept (pod-record, the transform
 *   before caching); ReplicaSets, Jobs and namespaces are read as metadata, and only their
 *   controller reference or labels are kept. Replicas share one classification (classify-memo);
 * - counts and workloads are updated per event (tally); Events are looked at only for the
 *   workloads that changed (and all of them again every `resweepMs`), and only as many as the
 *   Event rate limit lets out;
 * - what invalidates classifications relists instead of keeping pods around: a new config or
 *   new webhook scopes relist the pods; a namespace whose labels change relists its own pods.
 */
import type { Counter, Gauge } from 'prom-client';
import type { LoadedConfig } from '../config/types.js';
import type { WebhookScope } from '../install/webhook-rules.js';
import { ClassifyMemo } from './classify-memo.js';
import type { EventRecorder } from './events.js';
import { Informer, keyOf, type ListReason } from './informer.js';
import type { ClusterApi } from '../kube/cluster-api.js';
import { controllerOf, workloadKey, type ControllerLookup, type OwnerRef } from './owners.js';
import { planRestart } from './restart-plan.js';
import { toPodRecord, type PodRecord } from './pod-record.js';
import type { StatusReport, WorkloadEntry } from './report.js';
import { rollOut, settledTargets, type RolloutOptions } from './restart-workloads.js';
import { labelsOfObject, readScopes } from './scan.js';
import { PodTally } from './tally.js';
import { isRestartable, POD_STATES } from './types.js';

export interface ReconcilerOptions {
  api: ClusterApi;
  getConfig(): LoadedConfig | undefined;
  webhookConfig: string;
  injectorNamespace: string;
  /** Namespaces to watch; empty: all. */
  namespaces: readonly string[];
  restart: boolean;
  rollout: RolloutOptions;
  restartCooldownMs?: number;
  /** After a rollout whose pods another config injected, how soon to try again. Default 60 s. */
  otherConfigRetryMs?: number;
  recorder: EventRecorder;
  gauge: Gauge<'state'>;
  /** Lists by resource and why (start, expired, error, resync). */
  lists?: Counter<'resource' | 'reason'>;
  log(level: 'info' | 'warn', message: string, fields?: Record<string, unknown>): void;
  debounceMs?: number;
  scopeRefreshMs?: number;
  /** Every workload with stale or missing pods is looked at again this often (Events expire). */
  resweepMs?: number;
}

interface Owned {
  controller?: OwnerRef;
}

/** More namespaces than this changing labels at once: relist all pods rather than each namespace's. */
const NAMESPACE_PASSES = 20;

export class PodReconciler {
  readonly #o: ReconcilerOptions;
  readonly #pods: Informer<PodRecord>[];
  readonly #replicaSets: Informer<Owned>[];
  readonly #jobs: Informer<Owned>[];
  readonly #namespaces: Informer<Record<string, string>>;
  readonly #tally: PodTally;
  readonly #attention = new Set<string>();
  readonly #restartedAt = new Map<string, number>();
  readonly #passes = new Set<string>();
  /** Workloads with stale or missing pods whose Events are still to be looked at. */
  readonly #unsent = new Set<string>();
  #eventTimer: NodeJS.Timeout | undefined;
  #passing: Promise<void> | undefined;
  #memo: ClassifyMemo | undefined;
  #scopes: WebhookScope[] = [];
  /** The scopes were read (with a config): before that, nothing can be classified. */
  #scopesRead = false;
  #config: LoadedConfig | undefined;
  #podsStarted = false;
  #timer: NodeJS.Timeout | undefined;
  #scopeTimer: NodeJS.Timeout | undefined;
  #sweepTimer: NodeJS.Timeout | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #rolling: Promise<void> | undefined;
  #running = false;

  constructor(options: ReconcilerOptions) {
    this.#o = options;
    const log = (m: string, f?: Record<string, unknown>): void => options.log('warn', m, f);
    const counted = (path: string) => (reason: ListReason) => options.lists?.inc({ resource: path.slice(path.lastIndexOf('/') + 1), reason });
    const scoped = (group: string, resource: string): string[] =>
      options.namespaces.length === 0
        ? [`/${group}/${resource}`]
        : options.namespaces.map((ns) => `/${group}/namespaces/${encodeURIComponent(ns)}/${resource}`);
    const owners = (group: string, resource: string, kind: string): Informer<Owned>[] =>
      scoped(group, resource).map(
        (path) =>
          new Informer<Owned>({
            api: options.api,
            path,
            log,
            metadataOnly: true,
            transform: (obj) => ({ ...(controllerOf(obj) !== undefined ? { controller: controllerOf(obj) } : {}) }),
            onEvent: (key) => this.#tally.ownerChanged(key.slice(0, key.indexOf('/')), kind, key.slice(key.indexOf('/') + 1)),
            onSync: (reason) => {
              counted(path)(reason);
              this.#tally.resolveAll();
              this.#schedule();
            },
          }),
      );
    this.#replicaSets = owners('apis/apps/v1', 'replicasets', 'ReplicaSet');
    this.#jobs = owners('apis/batch/v1', 'jobs', 'Job');
    const lookup = (informers: Informer<Owned>[]): ControllerLookup => ({
      get: (key) => {
        for (const i of informers) {
          const hit = i.items.get(key);
          if (hit !== undefined) return hit.controller;
        }
        return undefined;
      },
    });
    this.#tally = new PodTally({ replicaSets: lookup(this.#replicaSets), jobs: lookup(this.#jobs) });
    this.#pods = scoped('api/v1', 'pods').map(
      (path) =>
        new Informer<PodRecord>({
          api: options.api,
          path,
          log,
          transform: (obj) => toPodRecord(obj, (pod, ns) => this.#memo!.classify(pod, this.#labels(ns))),
          onEvent: (key, _before, after) => {
            this.#tally.set(key, after);
            this.#schedule();
          },
          onSync: (reason) => {
            counted(path)(reason);
            this.#tally.replaceAll(this.#pods.flatMap((i) => [...i.items]));
            this.#schedule();
          },
        }),
    );
    this.#namespaces = new Informer<Record<string, string>>({
      api: options.api,
      path: '/api/v1/namespaces',
      log,
      metadataOnly: true,
      transform: (obj) => labelsOfObject(obj),
      onEvent: (key, before, after) => {
        if (JSON.stringify(before ?? {}) !== JSON.stringify(after ?? {})) this.#namespaceChanged(key.slice(1));
      },
      onSync: (reason, previous) => {
        counted('/namespaces')(reason);
        for (const key of new Set([...previous.keys(), ...this.#namespaces.items.keys()])) {
          if (JSON.stringify(previous.get(key) ?? {}) !== JSON.stringify(this.#namespaces.items.get(key) ?? {})) this.#namespaceChanged(key.slice(1));
        }
      },
    });
  }

  async start(): Promise<void> {
    this.#running = true;
    await this.#refreshScopes();
    await Promise.all([this.#namespaces, ...this.#replicaSets, ...this.#jobs].map((i) => i.start()));
    const every = this.#o.scopeRefreshMs ?? 60_000;
    const refresh = (): void => {
      this.#scopeTimer = setTimeout(() => void this.#refreshScopes().finally(() => this.#running && refresh()), every);
    };
    refresh();
    const sweep = (): void => {
      this.#sweepTimer = setTimeout(
        () => {
          for (const w of this.#attention) this.#tally.markDirty(w);
          this.#schedule();
          sweep();
        },
        this.#o.resweepMs ?? 10 * 60_000,
      );
    };
    sweep();
    await this.#startPods();
  }

  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    clearTimeout(this.#scopeTimer);
    clearTimeout(this.#sweepTimer);
    clearTimeout(this.#retryTimer);
    clearTimeout(this.#eventTimer);
    this.#unsent.clear();
    for (const i of [this.#namespaces, ...this.#pods, ...this.#replicaSets, ...this.#jobs]) i.stop();
    this.#tally.clear();
    this.#attention.clear();
    this.#passes.clear();
    this.#memo = undefined;
    this.#podsStarted = false;
    this.#scopesRead = false;
    this.#config = undefined;
    this.#o.gauge.reset();
    await this.#rolling;
  }

  /** The config may have changed (serve calls this on every load): classify with it. */
  configChanged(): void {
    if (!this.#running) return;
    const config = this.#o.getConfig();
    if (config === undefined || config === this.#config) return;
    // Leadership can come before the first config (a config file still loading): the scopes
    // are read now; that starts the pods.
    if (!this.#scopesRead) void this.#refreshScopes().then(() => this.#startPods());
    else this.#reclassify();
  }

  /** The whole report (a pass over every pod: tests and diagnostics, not the hot path). */
  get report(): StatusReport | undefined {
    return this.#podsStarted && this.#pods.every((i) => i.synced) ? this.#tally.report() : undefined;
  }

  /** The informers' request counts (lists by reason, watches): diagnostics and tests. */
  get informerStats() {
    return [this.#namespaces, ...this.#pods, ...this.#replicaSets, ...this.#jobs].map((i) => ({ path: i.path, ...i.stats }));
  }

  #labels(namespace: string): Record<string, string> {
    return this.#namespaces.items.get(`/${namespace}`) ?? {};
  }

  async #startPods(): Promise<void> {
    const config = this.#o.getConfig();
    if (!this.#running || this.#podsStarted || config === undefined || !this.#scopesRead || !this.#namespaces.synced) return;
    this.#podsStarted = true;
    this.#config = config;
    this.#memo = new ClassifyMemo({ config, scopes: this.#scopes });
    await Promise.all(this.#pods.map((i) => i.start()));
    this.#o.log('info', 'reconcile started', { namespaces: this.#o.namespaces.length === 0 ? 'all' : this.#o.namespaces, pods: this.#tally.size });
  }

  /** A new config or new scopes: every classification may change; the pods are listed again. */
  #reclassify(): void {
    const config = this.#o.getConfig();
    if (!this.#podsStarted || config === undefined) return void this.#startPods();
    this.#config = config;
    this.#memo = new ClassifyMemo({ config, scopes: this.#scopes });
    this.#passes.clear();
    for (const i of this.#pods) i.resync();
  }

  async #refreshScopes(): Promise<void> {
    const config = this.#o.getConfig();
    if (config === undefined) return;
    const notes: string[] = [];
    try {
      const scopes = await readScopes(this.#o.api, config, { webhookConfig: this.#o.webhookConfig, injectorNamespace: this.#o.injectorNamespace }, notes);
      if (!this.#running) return;
      const first = !this.#scopesRead;
      this.#scopesRead = true;
      if (!first && JSON.stringify(scopes) !== JSON.stringify(this.#scopes)) {
        this.#scopes = scopes;
        this.#reclassify();
      } else this.#scopes = scopes;
    } catch (err) {
      this.#o.log('warn', 'cannot read the webhook configuration', { error: String(err) });
    }
    for (const n of notes) this.#o.log('warn', n);
  }

  /** A namespace's labels changed: its pods are judged again, from a list of that namespace. */
  #namespaceChanged(namespace: string): void {
    if (!this.#podsStarted || !this.#pods.some((i) => i.path === '/api/v1/pods' || i.path === `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`))
      return;
    this.#passes.add(namespace);
    if (this.#passes.size > NAMESPACE_PASSES) return this.#reclassify();
    this.#passing ??= this.#runPasses().finally(() => (this.#passing = undefined));
  }

  async #runPasses(): Promise<void> {
    while (this.#running && this.#passes.size > 0) {
      const namespace = this.#passes.values().next().value!;
      this.#passes.delete(namespace);
      const informer = this.#pods.find((i) => i.path === '/api/v1/pods' || i.path === `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`);
      const memo = this.#memo;
      if (informer === undefined || memo === undefined) continue;
      this.#o.lists?.inc({ resource: 'pods', reason: 'namespace-labels' });
      await this.#o.api
        .listPages(`/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`, {}, async (page) => {
          for (const pod of page) {
            const key = keyOf(pod);
            const held = key === undefined ? undefined : informer.items.get(key);
            // Only a pod the store holds at this very version: a newer event has already been
            // judged with the new labels, and an older one will be when its event arrives.
            if (
              held === undefined ||
              this.#memo !== memo ||
              held.resourceVersion !== (pod as { metadata: { resourceVersion?: string } }).metadata.resourceVersion
            )
              continue;
            const record = toPodRecord(pod, (p, ns) => memo.classify(p, this.#labels(ns)));
            if (record === undefined) continue;
            informer.items.set(key!, record);
            this.#tally.set(key!, record);
          }
          this.#schedule();
          await new Promise<void>((r) => setImmediate(r));
        })
        .catch((err: unknown) => {
          this.#o.log('warn', 'cannot list the pods of a namespace whose labels changed; relisting all pods', { namespace, error: String(err) });
          this.#reclassify();
        });
    }
  }

  /** Recompute after `ms` even when no watch event comes (restarts are only started by recomputes). */
  #recomputeIn(ms: number): void {
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#schedule();
    }, ms);
  }

  #schedule(): void {
    if (!this.#running || this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#flush();
    }, this.#o.debounceMs ?? 500);
  }

  /** Counts to the gauge; Events and restarts for the workloads that changed. */
  #flush(): void {
    if (!this.#running || !this.#podsStarted || !this.#pods.every((i) => i.synced)) return;
    for (const state of POD_STATES) this.#o.gauge.set({ state }, this.#tally.counts[state]);
    for (const key of this.#tally.takeDirty()) {
      const counts = this.#tally.countsOf(key);
      if (counts === undefined || (counts.missing === 0 && counts.stale === 0)) {
        this.#attention.delete(key);
        this.#unsent.delete(key);
      } else {
        this.#attention.add(key);
        this.#unsent.add(key);
      }
    }
    this.#sendEvents();
    const config = this.#config;
    if (this.#o.restart && this.#rolling === undefined && config !== undefined && this.#attention.size > 0) this.#restart(config);
  }

  /**
   * Events for the workloads waiting for one, oldest first, as many as the rate limit lets out
   * now: the rest wait (a burst of 6,000 new pods does not cost 6,000 workload reports a flush).
   */
  #sendEvents(): void {
    clearTimeout(this.#eventTimer);
    for (const key of this.#unsent) {
      if (this.#o.recorder.available() < 2) break; // a workload may need two (missing and stale)
      this.#unsent.delete(key);
      const entry = this.#tally.entry(key);
      if (entry !== undefined) this.#recordEvents(entry);
    }
    if (this.#unsent.size > 0 && this.#running) this.#eventTimer = setTimeout(() => this.#sendEvents(), 2000);
  }

  #recordEvents(w: WorkloadEntry): void {
    const on = { kind: w.kind, name: w.name, namespace: w.namespace, apiVersion: w.apiVersion, uid: w.uid };
    const details = w.details.join('; ');
    if (w.counts.missing > 0) {
      this.#o.recorder.record(
        on,
        'SidecarMissing',
        `${w.counts.missing} of ${w.pods.length} pods have no sidecar although the rules say inject (${details}); restart the workload to inject them`,
        'Warning',
        `missing|${details}`,
      );
    }
    if (w.counts.stale > 0) {
      const staleDetails = [...new Set(w.pods.filter((p) => p.state === 'stale').flatMap((p) => (p.changes ?? []).map((c) => c.detail)))].join('; ');
      this.#o.recorder.record(
        on,
        'SidecarStale',
        `${w.counts.stale} of ${w.pods.length} pods have a stale sidecar: ${staleDetails}`,
        'Warning',
        `stale|${staleDetails}`,
      );
    }
  }

  #restart(config: LoadedConfig): void {
    const now = Date.now();
    const cooldown = this.#o.restartCooldownMs ?? 30 * 60_000;
    // Reports only for the workloads that could be restarted now (kind, cooldown): keys are workloadKey's.
    const workloads = [...this.#attention]
      .filter((k) => isRestartable(k.split('/')[1] ?? '') && now - (this.#restartedAt.get(k) ?? -Infinity) >= cooldown)
      .map((k) => this.#tally.entry(k))
      .filter((e): e is WorkloadEntry => e !== undefined);
    if (workloads.length === 0) return;
    const candidates = planRestart(
      { kind: 'SidecarStatus', summary: { ...this.#tally.counts, pods: this.#tally.size, workloads: workloads.length }, workloads },
      { stale: true, missing: true },
    ).restart;
    if (candidates.length === 0) return;
    const memo = this.#memo ?? new ClassifyMemo({ config, scopes: this.#scopes });
    const deps = {
      api: this.#o.api,
      classify: (pod: unknown) => memo.classify(pod, this.#labels((pod as { metadata?: { namespace?: string } }).metadata?.namespace ?? '')),
      now: () => new Date(),
      sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
      log: (line: string) => this.#o.log('info', line),
    };
    this.#rolling = (async () => {
      // A workload still rolling out (restarted by another replica, or by a person) is left alone.
      // One being deleted (or in a namespace being deleted) could never progress: it would hold
      // every other restart up for the whole timeout.
      const { ready, rolling, deleting } = await settledTargets(this.#o.api, candidates);
      for (const p of [...ready, ...rolling, ...deleting]) this.#restartedAt.set(workloadKey(p.workload), now);
      if (rolling.length > 0)
        this.#o.log('info', 'not restarting workloads that are still rolling out', { workloads: rolling.map((p) => workloadKey(p.workload)) });
      if (deleting.length > 0)
        this.#o.log('info', 'not restarting workloads that are being deleted', { workloads: deleting.map((p) => workloadKey(p.workload)) });
      const outcomes = await rollOut(ready, deps, this.#o.rollout);
      for (const o of outcomes) {
        if (o.result === 'not-started') {
          this.#restartedAt.delete(workloadKey(o.workload));
          continue;
        }
        // Webhook replicas reload a changed ConfigMap seconds (up to the kubelet's sync period)
        // apart: pods a lagging replica injected are retried soon, not after the whole cooldown.
        if (o.result === 'other-config') {
          const retry = this.#o.otherConfigRetryMs ?? 60_000;
          this.#restartedAt.set(workloadKey(o.workload), Date.now() - cooldown + retry);
          this.#recomputeIn(retry);
        }
        const why = ready.find((d) => workloadKey(d.workload) === workloadKey(o.workload))?.why.join('; ') ?? '';
        this.#o.recorder.record(
          o.workload,
          'SidecarRestarted',
          `restarted (kubectl.kubernetes.io/restartedAt=${o.restartedAt ?? ''}) because ${why}: ${o.result}, ${o.detail}`,
          o.result === 'progressed' ? 'Normal' : 'Warning',
        );
      }
    })()
      .catch((err: unknown) => this.#o.log('warn', 'restart failed', { error: String(err) }))
      .finally(() => {
        this.#rolling = undefined;
      });
  }
}
