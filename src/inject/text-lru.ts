/**
 * @module inject/text-lru
 * The most recently used values by (name, text), for texts a render has just produced.
 *
 * Found by the text's length, then compared with `===`: a Map keyed by the text itself would
 * hash all of it on every lookup (a few µs for a 3 KB sidecar, more than the comparison), since
 * each render produces a new string. A length holds at most `perLength` texts (the earliest kept
 * leaves first), so texts made to share one length cost a bounded number of comparisons.
 */
interface Entry<V> {
  readonly name: string;
  readonly text: string;
  readonly value: V;
}

export class TextLru<V> {
  readonly #byLength = new Map<number, Entry<V>[]>();
  /** Every entry, least recently used first. */
  readonly #recency = new Set<Entry<V>>();

  constructor(
    private readonly entries: number,
    private readonly perLength: number,
  ) {}

  get size(): number {
    return this.#recency.size;
  }

  /** The value kept for (name, text), now the most recently used; undefined when there is none. */
  get(name: string, text: string): V | undefined {
    const bucket = this.#byLength.get(text.length);
    if (bucket === undefined) return undefined;
    for (const entry of bucket) {
      if (entry.text === text && entry.name === name) {
        this.#recency.delete(entry);
        this.#recency.add(entry); // most recently used last
        return entry.value;
      }
    }
    return undefined;
  }

  /** Keep `value` for (name, text), which get() just did not find; the least recently used leave. */
  add(name: string, text: string, value: V): void {
    const entry: Entry<V> = { name, text, value };
    const same = this.#byLength.get(text.length);
    if (same !== undefined && same.length >= this.perLength) this.#forget(same[0]);
    if (this.#recency.size >= this.entries) this.#forget(this.#recency.values().next().value as Entry<V>);
    const into = this.#byLength.get(text.length);
    if (into === undefined) this.#byLength.set(text.length, [entry]);
    else into.push(entry);
    this.#recency.add(entry);
  }

  /** Drop (name, text) if kept. */
  delete(name: string, text: string): void {
    const entry = this.#byLength.get(text.length)?.find((e) => e.text === text && e.name === name);
    if (entry !== undefined) this.#forget(entry);
  }

  #forget(entry: Entry<V>): void {
    this.#recency.delete(entry);
    const bucket = this.#byLength.get(entry.text.length)!;
    bucket.splice(bucket.indexOf(entry), 1);
    if (bucket.length === 0) this.#byLength.delete(entry.text.length);
  }
}
