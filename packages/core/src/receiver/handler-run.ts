import type { Delivery } from './delivery.js';
import type { ErrorHooks } from './error-hooks.js';
import type { InFlight } from './in-flight.js';
import type { LeaseKeeper } from './lease-keeper.js';
import type { ResolvedOptions } from './receiver-options.js';
import { runHandlers } from './run-handlers.js';
import type { StoreSteps } from './store-steps.js';

/**
 * A delivery's handler run and its end: the handlers (again, after a wait, when a run fails and the
 * service will not retry), then the outcome recorded (finish or release). Claims stay renewed throughout.
 */
export class HandlerRun {
  /** Waits between retries still to come, so that drain can cut them short. */
  readonly #waiting = new Set<() => void>();
  #hurry = false;

  constructor(
    readonly opts: ResolvedOptions,
    readonly store: StoreSteps,
    readonly leases: LeaseKeeper,
    readonly orderLeases: LeaseKeeper | undefined,
    readonly errors: ErrorHooks,
    readonly inFlight: InFlight,
  ) {}

  /**
   * Resolves with the failure, if any, and never rejects: a background run's promise has no one to catch
   * it. `retries` is false when the service will retry a failure itself ('after-handlers').
   */
  async runAndFinish(d: Delivery, retries: boolean): Promise<unknown> {
    const { event, token, obs, order } = d;
    const lease = token === undefined ? undefined : this.leases.hold(event.id, token);
    const objectLease = order === undefined ? undefined : this.orderLeases?.hold(order.key, order.token);
    try {
      const attempts = retries ? this.opts.retry.attempts : 1;
      for (let run = 0; ; run++) {
        d.error = await runHandlers(d.handlers, event, d.ctx, obs);
        if (d.error === undefined || run + 1 >= attempts) break;
        await this.#wait(this.opts.retry.waitMs(run));
      }
      this.leases.release(lease);
      this.orderLeases?.release(objectLease);
      if (token !== undefined) {
        await this.store.finish(event.id, token, d.error === undefined, this.opts.retainMs, obs, order);
      }
      if (d.error) this.errors.report(d.error);
      return d.error;
    } catch {
      // Only a logger that throws gets here (hooks are contained). The outcome stands.
      return d.error;
    } finally {
      this.leases.release(lease);
      this.orderLeases?.release(objectLease);
      obs?.finished(d.error);
      if (d.run) this.inFlight.finish(d.run, d.error);
    }
  }

  /** Until `calm`, retries run at once: a drain (a shutdown) is waiting for them. */
  hurry(): void {
    this.#hurry = true;
    for (const wake of [...this.#waiting]) wake();
  }

  calm(): void {
    this.#hurry = false;
  }

  #wait(ms: number): Promise<void> {
    if (this.#hurry) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        cancel();
        this.#waiting.delete(wake);
        resolve();
      };
      const cancel = this.opts.clock.setTimer(wake, ms);
      this.#waiting.add(wake);
    });
  }
}
