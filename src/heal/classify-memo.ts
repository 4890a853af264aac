/**
 * @module heal/classify-memo
 * Classification at scale. A pod is judged as the webhook received it at CREATE (`asAdmitted`:
 * no status, no server-set metadata, no name when the apiserver generated it), so the replicas
 * of one ReplicaSet or Job are the same input and get the same answer: the memo classifies
 * each distinct input once, keyed by a hash of it and of its namespace's labels, and hands
 * out the same (frozen) Classification to every replica. One memo serves one config and one
 * set of webhook scopes; a new config gets a new memo. Bounded (least recently used out).
 *
 * Inputs that differ (a StatefulSet's or DaemonSet's pods, bare pods) mostly get answers that
 * do not: equal answers are handed out as one object too, so 50,000 records hold a handful of
 * classifications, not one each (measured with the scale plan: 13,722 objects, 5 contents).
 */
import { createHash } from 'node:crypto';
import { isPlainObject } from '../util/json.js';
import { asAdmitted, classifyPod, type ClassifyContext } from './classify.js';
import type { Classification } from './types.js';

export interface MemoStats {
  hits: number;
  misses: number;
}

export class ClassifyMemo {
  readonly #ctx: Omit<ClassifyContext, 'namespaceLabels'>;
  readonly #max: number;
  readonly #entries = new Map<string, Classification>();
  /** Answers by their content (JSON), as handed out: equal answers share one object. */
  readonly #answers = new Map<string, Classification>();
  readonly stats: MemoStats = { hits: 0, misses: 0 };

  constructor(ctx: Omit<ClassifyContext, 'namespaceLabels'>, max = 8192) {
    this.#ctx = ctx;
    this.#max = max;
  }

  /** The pod's classification; `pod` must be a live pod (see scan's isLive). */
  classify(pod: unknown, namespaceLabels: Readonly<Record<string, string>>): Classification {
    if (!isPlainObject(pod) || !isPlainObject(pod.metadata)) return classifyPod(pod, { ...this.#ctx, namespaceLabels });
    const view = asAdmitted(pod);
    const key = createHash('sha1').update(JSON.stringify(namespaceLabels)).update('\0').update(JSON.stringify(view)).digest('base64');
    const hit = this.#entries.get(key);
    if (hit !== undefined) {
      this.stats.hits++;
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit;
    }
    this.stats.misses++;
    const c = this.#shared(classifyPod(view, { ...this.#ctx, namespaceLabels }));
    if (this.#entries.size >= this.#max) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, c);
    return c;
  }

  #shared(fresh: Classification): Classification {
    const text = JSON.stringify(fresh);
    const same = this.#answers.get(text);
    if (same !== undefined) return same;
    if (this.#answers.size >= this.#max) this.#answers.delete(this.#answers.keys().next().value!);
    const c = deepFreeze(fresh);
    this.#answers.set(text, c);
    return c;
  }
}

/** Shared between pods: nobody may change it. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
