import type { Delivery } from './delivery.js';
import { isPromiseLike } from './describe-error.js';
import type { ErrorHooks } from './error-hooks.js';
import type { WebhookHandlerError } from './handler-error.js';
import type { InFlight } from './in-flight.js';
import type { Held, LeaseKeeper } from './lease-keeper.js';
import type { ResolvedOptions } from './receiver-options.js';
import { runHandlers } from './run-handlers.js';
import type { StoreSteps } from './store-steps.js';

/** One delivery's handler run in progress. */
interface Run {
  readonly d: Delivery;
  readonly attempts: number;
  /** Runs done so far. */
  done: number;
  readonly lease: Held | undefined;
  readonly objectLease: Held | undefined;
  readonly settled: ((error: unknown) => void) | undefined;
}

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
  runAndFinish(d: Delivery, retries: boolean): Promise<unknown> {
    return new Promise((resolve) => this.start(d, retries, resolve));
  }

  /**
   * `runAndFinish` without a promise of its own, for the background run of every accepted event: with a
   * handler that answers at once and a synchronous store it runs to the end in this call; otherwise it
   * goes on from each promise it has to wait for. `settled` is given the failure, if any, at the end.
   */
  start(d: Delivery, retries: boolean, settled?: (error: unknown) => void): void {
    const { event, token, order } = d;
    const run: Run = {
      d,
      attempts: retries ? this.opts.retry.attempts : 1,
      done: 0,
      lease: token === undefined ? undefined : this.leases.hold(event.id, token),
      objectLease: order === undefined ? undefined : this.orderLeases?.hold(order.key, order.token),
      settled,
    };
    this.#attempt(run);
  }

  #attempt(run: Run): void {
    const { d } = run;
    let outcome: ReturnType<typeof runHandlers>;
    try {
      outcome = runHandlers(d.handlers, d.event, d.ctx, d.obs);
    } catch (e) {
      this.#end(run, e); // only an instrumentation that throws: the outcome is unknown
      return;
    }
    if (isPromiseLike(outcome)) outcome.then((error) => this.#ran(run, error));
    else this.#ran(run, outcome);
  }

  #ran(run: Run, error: WebhookHandlerError | undefined): void {
    const { d } = run;
    d.error = error;
    if (error !== undefined && ++run.done < run.attempts) {
      this.#wait(this.opts.retry.waitMs(run.done - 1)).then(() => this.#attempt(run));
      return;
    }
    this.leases.release(run.lease);
    this.orderLeases?.release(run.objectLease);
    const { event, token, obs, order } = d;
    try {
      const finished =
        token === undefined
          ? undefined
          : this.store.finish(event.id, token, error === undefined, this.opts.retainMs, obs, order);
      if (isPromiseLike(finished)) {
        finished.then(
          () => this.#end(run, undefined),
          (e: unknown) => this.#end(run, e),
        );
        return;
      }
    } catch (e) {
      this.#end(run, e);
      return;
    }
    this.#end(run, undefined);
  }

  /**
   * The outcome stands whatever happens here; `thrown` is a logger that threw (hooks are contained),
   * which ends the run like any other failure to record it.
   */
  #end(run: Run, thrown: unknown): void {
    const { d } = run;
    this.leases.release(run.lease);
    this.orderLeases?.release(run.objectLease);
    try {
      if (thrown === undefined && d.error) this.errors.report(d.error);
    } catch {
      // Only a logger that throws gets here (hooks are contained). The outcome stands.
    }
    d.obs?.finished(d.error);
    if (d.run) this.inFlight.finish(d.run, d.error);
    run.settled?.(d.error);
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
