/**
 * The tenants' secrets as last looked up, for `ttlMs`, at most `max` of them: the least recently used
 * goes first. Unknown tenants are kept too (as `null`), so that probing one costs what a known one does.
 * A Map keeps insertion order, so moving a hit to the end makes its first key the least recently used.
 */
export class SecretCache {
  readonly #entries = new Map<string, { secrets: readonly string[] | null; expiresAt: number }>();

  constructor(
    readonly max: number,
    readonly ttlMs: number,
    readonly now: () => number,
  ) {}

  /** The cached secrets, `null` for a tenant known to be unknown, `undefined` when not cached (or expired). */
  get(tenant: string): readonly string[] | null | undefined {
    const entry = this.#entries.get(tenant);
    if (entry === undefined) return undefined;
    this.#entries.delete(tenant);
    if (entry.expiresAt <= this.now()) return undefined;
    this.#entries.set(tenant, entry);
    return entry.secrets;
  }

  set(tenant: string, secrets: readonly string[] | null): void {
    this.#entries.delete(tenant);
    if (this.#entries.size >= this.max) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(tenant, { secrets, expiresAt: this.now() + this.ttlMs });
  }

  get size(): number {
    return this.#entries.size;
  }
}
