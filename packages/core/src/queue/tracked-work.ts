/** Work a worker's `drain` waits for, and whether the worker is closing (jobs waiting in place then stop). */
export class TrackedWork {
  readonly #work = new Set<Promise<unknown>>();
  /** Set by `drain`, and by the worker's `stopWaiting`. */
  closing = false;

  /** Adds `work` to what `drain` waits for, until it settles. */
  track<T>(work: Promise<T>): Promise<T> {
    this.#work.add(work);
    void work.then(
      () => this.#work.delete(work),
      () => this.#work.delete(work),
    );
    return work;
  }

  /** Sets `closing`, then resolves once all tracked work settled, `graceMs` after the last. */
  async drain(graceMs = 0): Promise<void> {
    this.closing = true;
    do {
      await Promise.allSettled([...this.#work]);
      if (graceMs > 0) await new Promise((resolve) => setTimeout(resolve, graceMs));
    } while (this.#work.size > 0);
  }
}
