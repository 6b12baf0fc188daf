export interface DrainResult {
  /** Background tasks still running when the time-out ran out, by event id. Empty when all finished. */
  unfinished: string[];
}

/** Background handler runs ('immediately' mode), so shutdown can wait for them. */
export class InFlight {
  readonly #tasks = new Map<Promise<unknown>, string>();

  get size(): number {
    return this.#tasks.size;
  }

  track(task: Promise<unknown>, eventId: string): void {
    const tasks = this.#tasks;
    tasks.set(task, eventId);
    // Inline callbacks, not a named const: tsx/esbuild's keepNames wraps every named closure in a
    // defineProperty call, a measurable cost on each delivery when run from source.
    task.then(
      () => tasks.delete(task),
      () => tasks.delete(task),
    );
  }

  async drain(timeoutMs?: number): Promise<DrainResult> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut =
      timeoutMs === undefined
        ? undefined
        : new Promise<'timeout'>((resolve) => {
            timer = setTimeout(resolve, timeoutMs, 'timeout');
          });
    try {
      // Tasks started while draining are waited for too.
      while (this.#tasks.size > 0) {
        const all = Promise.allSettled(this.#tasks.keys());
        if ((await (timedOut ? Promise.race([all, timedOut]) : all)) === 'timeout') {
          return { unfinished: [...this.#tasks.values()] };
        }
      }
      return { unfinished: [] };
    } finally {
      clearTimeout(timer);
    }
  }
}
