/**
 * The lookups as last answered, for `ttlMs`, at most `max` of them: the least recently used goes first.
 * A Map keeps insertion order, so moving a hit to the end makes its first key the least recently used.
 */
export class SecretCache<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    readonly max: number,
    readonly ttlMs: number,
    readonly now: () => number,
  ) {}

  /** The cached value, `undefined` when not cached (or expired). */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.max) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
  }

  get size(): number {
    return this.#entries.size;
  }
}
