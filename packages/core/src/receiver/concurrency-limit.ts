import type { ConcurrencyOptions } from './concurrency-options.js';
import type { Place, Running } from './delivery.js';
import type { WebhookHandlerError } from './handler-error.js';
import type { HandlerRun } from './handler-run.js';
import type { Refusals } from './refusals.js';
import { type ReceiverResponse, refusal } from './responses.js';

/**
 * `maxConcurrency`: at most that many deliveries run their handlers at once in this process, and at most
 * `maxQueue` more wait for a slot, in arrival order. Past both, a delivery is answered 503 `overloaded`
 * with Retry-After before its claim, so no store write was made and the service's retry runs it once.
 *
 * A delivery is admitted (`admit`) after verification and before its claim, and holds its place until its
 * run ends (`run`) or its claim is refused (`Place.leave`). In 'immediately' mode the waiting happens after the
 * 200, in the background; in 'after-handlers' mode the request waits. Claims are renewed while waiting,
 * as while running, so a long wait does not let a redelivery run the event a second time.
 */
export class ConcurrencyLimit {
  /** Deliveries admitted and not yet done: running, waiting, or between admission and their claim. */
  #admitted = 0;
  #running = 0;
  /** Runs waiting for a slot, oldest first; a Set keeps insertion order and removes its first in O(1). */
  readonly #waiting = new Set<() => void>();
  readonly #bound: number;
  /** The answer past the bound: 503 `overloaded`, with Retry-After. */
  readonly refusal: ReceiverResponse;

  constructor(
    readonly options: ConcurrencyOptions,
    readonly runner: HandlerRun,
    readonly refusals: Refusals,
  ) {
    const { maxConcurrency, maxQueue } = options;
    this.#bound = maxConcurrency + maxQueue;
    this.refusal = refusal(
      'overloaded',
      `${maxConcurrency} deliveries are being handled and ${maxQueue} are waiting (maxConcurrency, maxQueue); retry later.`,
    );
  }

  /** The limit of `options`, or undefined when there is none. */
  static of(options: ConcurrencyOptions | undefined, runner: HandlerRun, refusals: Refusals) {
    return options === undefined ? undefined : new ConcurrencyLimit(options, runner, refusals);
  }

  /** Handler runs going on now; never more than `maxConcurrency`. */
  get running(): number {
    return this.#running;
  }

  /** Admitted deliveries not yet running. */
  get queued(): number {
    return this.#admitted - this.#running;
  }

  /** For the entries: every slot and place is taken, known before a body is read. Counted. */
  refuseIfFull(): ReceiverResponse | undefined {
    return this.#admitted < this.#bound ? undefined : this.refusals.refuseUnread(this.refusal);
  }

  /** Takes a place, or answers the refusal (counted) when there is none. */
  admit(): Place | ReceiverResponse {
    if (this.#admitted >= this.#bound) return this.refusals.refuse(this.refusal);
    this.#admitted++;
    let held = true;
    return {
      leave: () => {
        if (!held) return;
        held = false;
        this.#admitted--;
      },
    };
  }

  /** Runs `d`'s handlers once a slot is free; the slot passes straight to the next waiting run. */
  async run(d: Running, retries: boolean): Promise<WebhookHandlerError | undefined> {
    if (this.#running < this.options.maxConcurrency) this.#running++;
    else await this.#turn(d);
    try {
      return await this.runner.runAndFinish(d, retries);
    } finally {
      d.place?.leave();
      const next = this.#waiting.values().next();
      if (next.done === true) this.#running--;
      else {
        this.#waiting.delete(next.value);
        next.value();
      }
    }
  }

  /** Waits for a slot handed over by a run that ended, keeping the claims alive meanwhile. */
  #turn(d: Running): Promise<void> {
    const { key, held } = d;
    // The claim's store key: the tenant's and the event's with a `secret` function, not the bare event id.
    const lease = held === undefined ? undefined : this.runner.leases.hold(key, held.token);
    const order = held?.order;
    const objectLease =
      order === undefined ? undefined : this.runner.orderLeases.hold(order.key, order.token);
    return new Promise((resolve) => {
      this.#waiting.add(() => {
        lease?.release();
        objectLease?.release();
        resolve();
      });
    });
  }
}
