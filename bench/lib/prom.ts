/**
 * @module bench/lib/prom
 * Histograms from a Prometheus text exposition, as the pod-create benchmark reads them: the
 * kube-apiserver's `apiserver_admission_webhook_admission_duration_seconds` (per webhook) and
 * our `sidecar_injector_request_duration_seconds` (per outcome). Counters are cumulative, so a
 * measurement is the difference of two scrapes; the mean is exact (sum / count), quantiles are
 * interpolated within buckets the way PromQL's `histogram_quantile` does (all a user of these
 * metrics can see: the apiserver's finest bucket is 5 ms).
 */

/** One histogram series: cumulative bucket counts by upper bound, sum and count. */
export interface Histogram {
  /** Upper bounds in ascending order, +Inf last, with their cumulative counts. */
  buckets: { le: number; count: number }[];
  sum: number;
  count: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function labelsOf(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (text === undefined) return out;
  for (const m of text.matchAll(LABEL)) out[m[1]] = m[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  return out;
}

/**
 * The histograms named `name` in `text`, one per value of the label `by`, summed over every
 * other label (the apiserver splits a webhook's series by operation, type and rejected).
 */
export function histograms(text: string, name: string, by: string): Map<string, Histogram> {
  const acc = new Map<string, { buckets: Map<number, number>; sum: number; count: number }>();
  const get = (key: string) => {
    let h = acc.get(key);
    if (h === undefined) acc.set(key, (h = { buckets: new Map(), sum: 0, count: 0 }));
    return h;
  };
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = LINE.exec(line);
    if (m === null) continue;
    const suffix = m[1].slice(name.length);
    if (suffix !== '_bucket' && suffix !== '_sum' && suffix !== '_count') continue;
    const labels = labelsOf(m[2]);
    const key = labels[by];
    if (key === undefined) continue;
    const value = Number(m[3]);
    const h = get(key);
    if (suffix === '_sum') h.sum += value;
    else if (suffix === '_count') h.count += value;
    else {
      const le = labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(labels.le);
      h.buckets.set(le, (h.buckets.get(le) ?? 0) + value);
    }
  }
  const out = new Map<string, Histogram>();
  for (const [key, h] of acc) {
    const buckets = [...h.buckets].sort((a, b) => a[0] - b[0]).map(([le, count]) => ({ le, count }));
    out.set(key, { buckets, sum: h.sum, count: h.count });
  }
  return out;
}

/** What was observed between two scrapes (`before` absent: from zero). */
export function delta(after: Histogram | undefined, before: Histogram | undefined): Histogram {
  if (after === undefined) return { buckets: [], sum: 0, count: 0 };
  if (before === undefined) return after;
  const prior = new Map(before.buckets.map((b) => [b.le, b.count]));
  return {
    buckets: after.buckets.map((b) => ({ le: b.le, count: b.count - (prior.get(b.le) ?? 0) })),
    sum: after.sum - before.sum,
    count: after.count - before.count,
  };
}

/** sum / count in seconds; NaN when nothing was observed. */
export function mean(h: Histogram): number {
  return h.count > 0 ? h.sum / h.count : Number.NaN;
}

/**
 * The q-quantile (0-1) in seconds, interpolated linearly inside the bucket it falls in, from 0
 * for the first bucket (PromQL's histogram_quantile); the last finite bound when it falls in +Inf.
 */
export function quantile(h: Histogram, q: number): number {
  if (h.count <= 0 || h.buckets.length === 0) return Number.NaN;
  const rank = q * h.count;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const b of h.buckets) {
    if (b.count >= rank) {
      if (b.le === Number.POSITIVE_INFINITY) return lowerBound;
      const inBucket = b.count - lowerCount;
      return inBucket <= 0 ? b.le : lowerBound + ((b.le - lowerBound) * (rank - lowerCount)) / inBucket;
    }
    lowerBound = b.le;
    lowerCount = b.count;
  }
  return lowerBound;
}

/** Two measurements together (the same buckets, or one of them empty). */
export function add(a: Histogram, b: Histogram): Histogram {
  if (a.buckets.length === 0) return { ...b, buckets: [...b.buckets] };
  if (b.buckets.length === 0) return { ...a, buckets: [...a.buckets] };
  const other = new Map(b.buckets.map((x) => [x.le, x.count]));
  return { buckets: a.buckets.map((x) => ({ le: x.le, count: x.count + (other.get(x.le) ?? 0) })), sum: a.sum + b.sum, count: a.count + b.count };
}

export const EMPTY: Histogram = Object.freeze({ buckets: [], sum: 0, count: 0 }) as Histogram;

/** A counter's values by one label (summed over the others). */
export function counters(text: string, name: string, by: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = LINE.exec(line);
    if (m === null || m[1] !== name) continue;
    const key = labelsOf(m[2])[by];
    if (key !== undefined) out.set(key, (out.get(key) ?? 0) + Number(m[3]));
  }
  return out;
}
