/** A body may hold this much before the budget can make it wait: webhook deliveries never do. */
export const SMALL_BODY_BYTES = 64 * 1024;

/** One body being read, as the budget sees it. */
export interface BudgetedRead {
  pause(): void;
  resume(): void;
}

/**
 * The bytes of request bodies a receiver holds while it reads them, summed over every request. The limit
 * of each body (`maxBodyBytes`) alone does not bound memory: a hundred uploads at once each hold up to
 * it, and a body cannot be refused before it crosses it. Past the budget, bodies that already hold more
 * than 64 KiB pause (their bytes wait in the kernel, and TCP slows the sender) until others finish.
 *
 * - Small bodies never wait, so a burst of large ones cannot hold up webhook deliveries.
 * - The oldest large body always reads on, so reading always progresses: some body finishes (or is
 *   refused) and gives its bytes back, then the paused ones resume one by one, in the order they paused.
 * - A paused body's `bodyTimeoutMs` keeps running: under a flood, a body may be answered 408.
 */
export class BodyBudget {
  #held = 0;
  /** Large reads in the order they became large: the first is the oldest, and never waits. */
  readonly #large = new Set<BudgetedRead>();
  readonly #paused = new Set<BudgetedRead>();

  constructor(readonly limitBytes: number) {}

  get heldBytes(): number {
    return this.#held;
  }

  get pausedReads(): number {
    return this.#paused.size;
  }

  /** `read` received `bytes` and keeps them; `total` is all it holds now. Pauses it when over budget. */
  add(read: BudgetedRead, bytes: number, total: number): void {
    this.#held += bytes;
    if (total <= SMALL_BODY_BYTES) return;
    // Adding again keeps a read's place: a Set orders by first insertion.
    this.#large.add(read);
    if (this.#held <= this.limitBytes) {
      this.#resumeNext();
    } else if (this.#large.values().next().value !== read && !this.#paused.has(read)) {
      this.#paused.add(read);
      read.pause();
    }
  }

  /** `read` is done (whole, refused or gone) and lets go of the `bytes` it held. */
  release(read: BudgetedRead, bytes: number): void {
    this.#held -= bytes;
    const large = this.#large;
    // Every delivery comes through here: a small body costs a subtraction and a Set lookup.
    if (large.size > 0 && large.has(read)) {
      const wasOldest = large.values().next().value === read;
      large.delete(read);
      this.#paused.delete(read);
      if (wasOldest) {
        const oldest = large.values().next().value;
        if (oldest && this.#paused.delete(oldest)) oldest.resume();
      }
    }
    if (this.#paused.size > 0 && this.#held <= this.limitBytes) this.#resumeNext();
  }

  /** One at a time: each resumed read lets the next one go when its bytes still fit. */
  #resumeNext(): void {
    const next = this.#paused.values().next().value;
    if (next === undefined) return;
    this.#paused.delete(next);
    next.resume();
  }
}
