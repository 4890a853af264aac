/**
 * @module cluster/pod-events
 * Events on the injector's own pod, so `kubectl describe pod` shows why it is not ready (a
 * missing or forbidden TLS Secret) next to kubelet's probe failures. The pod learns its name,
 * namespace and uid from the downward API (POD_NAME, POD_NAMESPACE, POD_UID, set by the
 * install); without them (serve outside a pod) nothing is recorded. Rate-limited (a small token
 * bucket), best effort: a failed Event is the caller's log line, never an error.
 */
import { createHash } from 'node:crypto';
import type { RequestOptions } from './client.js';

export interface PodRef {
  name: string;
  namespace: string;
  uid?: string;
}

export interface EventApi {
  post(path: string, body: unknown, options?: RequestOptions): Promise<unknown>;
}

/** The pod this process runs in, from the downward-API variables; undefined outside a pod. */
export function podFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): PodRef | undefined {
  const name = env.POD_NAME?.trim();
  const namespace = env.POD_NAMESPACE?.trim();
  if (!name || !namespace) return undefined;
  const uid = env.POD_UID?.trim();
  return { name, namespace, ...(uid ? { uid } : {}) };
}

export interface PodEventRecorder {
  /** Record an Event (unless over the rate); resolves once sent or dropped, never rejects. */
  record(reason: string, message: string, type?: 'Normal' | 'Warning'): Promise<void>;
}

export function podEventRecorder(api: EventApi, pod: PodRef, options: { burst?: number; perMinute?: number; now?: () => number; onError?: (err: unknown) => void } = {}): PodEventRecorder {
  const burst = options.burst ?? 10;
  const perMinute = options.perMinute ?? 1;
  const now = options.now ?? (() => Date.now());
  let tokens = burst;
  let refilledAt = now();
  return {
    async record(reason, message, type = 'Warning') {
      const t = now();
      tokens = Math.min(burst, tokens + ((t - refilledAt) / 60_000) * perMinute);
      refilledAt = t;
      if (tokens < 1) return;
      tokens--;
      const at = new Date(t).toISOString();
      const text = message.length > 1024 ? `${message.slice(0, 1021)}...` : message;
      const suffix = createHash('sha256').update(`${reason}|${text}|${t}`).digest('hex').slice(0, 10);
      const event = {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `${pod.name.slice(0, 200)}.${suffix}`, namespace: pod.namespace },
        involvedObject: { apiVersion: 'v1', kind: 'Pod', name: pod.name, namespace: pod.namespace, ...(pod.uid ? { uid: pod.uid } : {}) },
        reason,
        message: text,
        type,
        count: 1,
        firstTimestamp: at,
        lastTimestamp: at,
        source: { component: 'sidecar-injector' },
        reportingComponent: 'sidecar-injector',
        reportingInstance: pod.name,
      };
      try {
        await api.post(`/api/v1/namespaces/${pod.namespace}/events`, event);
      } catch (err) {
        options.onError?.(err);
      }
    },
  };
}
