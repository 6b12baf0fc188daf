import type { KeptDelivery } from './dedupe-store.js';

/** MemoryStore's kept deliveries (`keepDeliveries`): by key, oldest first, at most `max`, each until it expires. */
export class MemoryKept {
  readonly #entries = new Map<string, { delivery: KeptDelivery; expires: number }>();

  constructor(
    readonly max: number,
    readonly now: () => number,
  ) {}

  keep(key: string, delivery: KeptDelivery, retainMs: number): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.max) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { delivery: { ...delivery }, expires: this.now() + retainMs });
  }

  read(key: string): KeptDelivery | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires <= this.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return { ...entry.delivery };
  }
}
