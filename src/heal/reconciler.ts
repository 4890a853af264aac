/**
 * @module heal/reconciler
 * `serve --reconcile`, the leader's work: keep a watched copy of pods, namespaces, ReplicaSets
 * and Jobs (informers: one list, then watches), classify every pod with `classifyPod` (the
 * same function as `status`; results cached per pod resourceVersion, namespace labels and
 * config, so a watch event costs one classification), export the counts as
 * `sidecar_injector_pods{state}`, record SidecarMissing/SidecarStale Events on the workloads
 * and, with `--reconcile-restart`, restart them under the same limits as `restart`, then record
 * SidecarRestarted. A restarted workload is not restarted again within `restartCooldownMs`
 * (its old pods stay until the rollout finishes).
 */
import type { Gauge } from 'prom-client';
import type { LoadedConfig } from '../config/types.js';
import type { WebhookScope } from '../install/webhook-rules.js';
import { classifyPod } from './classify.js';
import type { EventRecorder } from './events.js';
import { Informer } from './informer.js';
import type { HealApi } from './kube.js';
import { indexControllers, workloadOf, workloadKey, type OwnerIndex } from './owners.js';
import { planRestart } from './plan.js';
import { buildReport, type ClassifiedPod, type StatusReport } from './report.js';
import { rollOut, settledTargets, type RolloutOptions } from './rollout.js';
import { isLive, labelsOfObject, nameOf, readScopes } from './scan.js';
import { POD_STATES, type Classification } from './types.js';

export interface ReconcilerOptions {
  api: HealApi;
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
  log(level: 'info' | 'warn', message: string, fields?: Record<string, unknown>): void;
  debounceMs?: number;
  scopeRefreshMs?: number;
}

interface Cached {
  key: string;
  classification: Classification;
}

export class PodReconciler {
  readonly #o: ReconcilerOptions;
  readonly #informers: { pods: Informer[]; replicaSets: Informer[]; jobs: Informer[]; namespaces: Informer };
  readonly #cache = new Map<string, Cached>();
  readonly #restartedAt = new Map<string, number>();
  #scopes: WebhookScope[] = [];
  /** The scopes were read (with a config): before that, nothing can be classified. */
  #scopesRead = false;
  #configGen = 0;
  #config: LoadedConfig | undefined;
  #timer: NodeJS.Timeout | undefined;
  #scopeTimer: NodeJS.Timeout | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #rolling: Promise<void> | undefined;
  #running = false;
  /** The last computed report (tests, logs). */
  report: StatusReport | undefined;

  constructor(options: ReconcilerOptions) {
    this.#o = options;
    const onChange = (): void => this.#schedule();
    const make = (path: string) => new Informer({ api: options.api, path, onChange, log: (m, f) => options.log('warn', m, f) });
    const scoped = (group: string, resource: string) =>
      options.namespaces.length === 0 ? [make(`/${group}/${resource}`)] : options.namespaces.map((ns) => make(`/${group}/namespaces/${encodeURIComponent(ns)}/${resource}`));
    this.#informers = {
      pods: scoped('api/v1', 'pods'),
      replicaSets: scoped('apis/apps/v1', 'replicasets'),
      jobs: scoped('apis/batch/v1', 'jobs'),
      namespaces: make('/api/v1/namespaces'),
    };
  }

  async start(): Promise<void> {
    this.#running = true;
    await this.#refreshScopes();
    const all = [this.#informers.namespaces, ...this.#informers.pods, ...this.#informers.replicaSets, ...this.#informers.jobs];
    await Promise.all(all.map((i) => i.start()));
    const every = this.#o.scopeRefreshMs ?? 60_000;
    const refresh = (): void => {
      this.#scopeTimer = setTimeout(() => void this.#refreshScopes().finally(() => this.#running && refresh()), every);
    };
    refresh();
    this.#o.log('info', 'reconcile started', { namespaces: this.#o.namespaces.length === 0 ? 'all' : this.#o.namespaces, pods: this.#podCount() });
    this.recompute();
  }

  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    clearTimeout(this.#scopeTimer);
    clearTimeout(this.#retryTimer);
    for (const i of [this.#informers.namespaces, ...this.#informers.pods, ...this.#informers.replicaSets, ...this.#informers.jobs]) i.stop();
    this.#cache.clear();
    this.#scopesRead = false;
    this.#o.gauge.reset();
    await this.#rolling;
  }

  #podCount(): number {
    return this.#informers.pods.reduce((n, i) => n + i.items.size, 0);
  }

  async #refreshScopes(): Promise<void> {
    const config = this.#o.getConfig();
    if (config === undefined) return;
    const notes: string[] = [];
    try {
      const scopes = await readScopes(this.#o.api, config, { webhookConfig: this.#o.webhookConfig, injectorNamespace: this.#o.injectorNamespace }, notes);
      const first = !this.#scopesRead;
      this.#scopesRead = true;
      if (first || JSON.stringify(scopes) !== JSON.stringify(this.#scopes)) {
        this.#scopes = scopes;
        this.#configGen++;
        this.#schedule();
      }
    } catch (err) {
      this.#o.log('warn', 'cannot read the webhook configuration', { error: String(err) });
    }
    for (const n of notes) this.#o.log('warn', n);
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
      this.recompute();
    }, this.#o.debounceMs ?? 500);
  }

  /** Classify what changed, update the gauge, record Events, start restarts. */
  recompute(): void {
    if (!this.#running) return;
    const config = this.#o.getConfig();
    if (config === undefined) return;
    if (!this.#scopesRead) {
      // Leadership can come before the first config (a config file still loading): read the
      // webhook configuration now; that schedules the first classification.
      void this.#refreshScopes();
      return;
    }
    if (config !== this.#config) {
      this.#config = config;
      this.#configGen++;
    }
    const nsLabels = new Map<string, Record<string, string>>();
    for (const ns of this.#informers.namespaces.items.values()) nsLabels.set(nameOf(ns), labelsOfObject(ns));
    const index: OwnerIndex = {
      replicaSets: indexControllers(this.#informers.replicaSets.flatMap((i) => [...i.items.values()])),
      jobs: indexControllers(this.#informers.jobs.flatMap((i) => [...i.items.values()])),
    };
    const classified: ClassifiedPod[] = [];
    const seen = new Set<string>();
    for (const informer of this.#informers.pods) {
      for (const [key, pod] of informer.items) {
        if (!isLive(pod)) continue;
        seen.add(key);
        const meta = (pod as { metadata: { namespace?: string; resourceVersion?: string } }).metadata;
        const labels = nsLabels.get(meta.namespace ?? '') ?? {};
        const cacheKey = `${meta.resourceVersion ?? ''}|${this.#configGen}|${JSON.stringify(labels)}`;
        let hit = this.#cache.get(key);
        if (hit?.key !== cacheKey) {
          hit = { key: cacheKey, classification: classifyPod(pod, { config, scopes: this.#scopes, namespaceLabels: labels }) };
          this.#cache.set(key, hit);
        }
        classified.push({ name: nameOf(pod), workload: workloadOf(pod, index), classification: hit.classification });
      }
    }
    for (const key of this.#cache.keys()) if (!seen.has(key)) this.#cache.delete(key);
    const report = buildReport(classified);
    this.report = report;
    for (const state of POD_STATES) this.#o.gauge.set({ state }, report.summary[state]);
    this.#recordEvents(report);
    if (this.#o.restart && this.#rolling === undefined) this.#restart(report, config, nsLabels);
  }

  #recordEvents(report: StatusReport): void {
    for (const w of report.workloads) {
      const on = { kind: w.kind, name: w.name, namespace: w.namespace, apiVersion: w.apiVersion, uid: w.uid };
      const details = w.details.join('; ');
      if (w.counts.missing > 0) {
        this.#o.recorder.record(on, 'SidecarMissing', `${w.counts.missing} of ${w.pods.length} pods have no sidecar although the rules say inject (${details}); restart the workload to inject them`, 'Warning', `missing|${details}`);
      }
      if (w.counts.stale > 0) {
        const staleDetails = [...new Set(w.pods.filter((p) => p.state === 'stale').flatMap((p) => (p.changes ?? []).map((c) => c.detail)))].join('; ');
        this.#o.recorder.record(on, 'SidecarStale', `${w.counts.stale} of ${w.pods.length} pods have a stale sidecar: ${staleDetails}`, 'Warning', `stale|${staleDetails}`);
      }
    }
  }

  #restart(report: StatusReport, config: LoadedConfig, nsLabels: Map<string, Record<string, string>>): void {
    const now = Date.now();
    const cooldown = this.#o.restartCooldownMs ?? 30 * 60_000;
    const plan = planRestart(report, { stale: true, missing: true });
    const candidates = plan.restart.filter((p) => now - (this.#restartedAt.get(workloadKey(p.workload)) ?? -Infinity) >= cooldown);
    if (candidates.length === 0) return;
    const scopes = this.#scopes;
    const deps = {
      api: this.#o.api,
      classify: (pod: unknown) => classifyPod(pod, { config, scopes, namespaceLabels: nsLabels.get((pod as { metadata?: { namespace?: string } }).metadata?.namespace ?? '') ?? {} }),
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
      if (rolling.length > 0) this.#o.log('info', 'not restarting workloads that are still rolling out', { workloads: rolling.map((p) => workloadKey(p.workload)) });
      if (deleting.length > 0) this.#o.log('info', 'not restarting workloads that are being deleted', { workloads: deleting.map((p) => workloadKey(p.workload)) });
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
