import { badReply, bounded, type StoreContext } from './store-context.js';

/**
 * Removes up to `limit` expired rows of each table (claims whose lease ran out, records past their
 * retention, kept deliveries past theirs) and resolves with how many.
 */
export async function sweep(ctx: StoreContext, limit: number): Promise<number> {
  const rows = await bounded(ctx, ctx.run('sweep', ctx.sql.sweep, [limit]), 'sweep');
  const n = rows[0]?.n;
  if (typeof n !== 'number') throw badReply('sweep', rows);
  // The order and kept tables exist once migrated by a version that has them; a database without
  // them has nothing there.
  let more = 0;
  for (const [name, text] of [
    ['sweepOrder', ctx.order.sweepOrder],
    ['sweepKept', ctx.kept.sweepKept],
  ] as const) {
    const swept = await bounded(
      ctx,
      ctx.run(name, text, [limit]).catch((error: unknown) => {
        if ((error as { code?: unknown } | null)?.code === '42P01') return [{ n: 0 }];
        throw error;
      }),
      'sweep',
    );
    const m = swept[0]?.n;
    more += typeof m === 'number' ? m : 0;
  }
  return n + more;
}

/**
 * The automatic sweep: one batch at a time, at most every `intervalMs`, started by a claim but never
 * awaited by it. A full batch means more are waiting: the next claim starts the next batch.
 */
export class Sweeper {
  #next = 0;
  #running: Promise<unknown> | undefined;
  #closed = false;

  constructor(
    private readonly intervalMs: number,
    private readonly batch: number,
    private readonly sweepBatch: () => Promise<number>,
  ) {}

  maybeSweep(): void {
    if (this.intervalMs === 0 || this.#closed || this.#running !== undefined) return;
    const now = Date.now();
    if (now < this.#next) return;
    this.#next = now + this.intervalMs;
    this.#running = this.sweepBatch().then(
      (n) => {
        if (n >= this.batch) this.#next = 0;
      },
      () => {},
    );
    this.#running.finally(() => {
      this.#running = undefined;
    });
  }

  /** Stops the automatic sweep and waits for one in progress. */
  async shutdown(): Promise<void> {
    this.#closed = true;
    await this.#running;
  }
}
