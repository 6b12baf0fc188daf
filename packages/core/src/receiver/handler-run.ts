import type { Clock } from '../base/clock.js';
import { describeError } from '../base/describe-error.js';
import type { AnyWebhookEvent } from '../verify/event-types.js';
import { type OrderStore, supportsOrder } from './dedupe-store.js';
import type { Held, Routed, Running } from './delivery.js';
import { pendingDispatch } from './dispatch.js';
import type { ErrorHooks } from './error-hooks.js';
import { HandlerTimeoutError, WebhookHandlerError } from './handler-error.js';
import type { AnyWebhookHandler, HandlerContext } from './handler-registry.js';
import { observeStore as call, type HandlerObserver } from './instrumentation.js';
import { LeaseKeeper } from './lease-keeper.js';
import type { ResolvedOptions } from './receiver-options.js';
import { RunTimeouts } from './run-timeouts.js';

/** Every handler runs, concurrently; their failures come back as one error, never as a rejection. */
export async function runHandlers(
  handlers: readonly AnyWebhookHandler[],
  event: AnyWebhookEvent,
  ctx: HandlerContext,
  obs?: HandlerObserver,
): Promise<WebhookHandlerError | undefined> {
  // Most types have one handler: it needs no allSettled.
  const h = handlers.length === 1 ? handlers[0] : undefined;
  if (h !== undefined) {
    try {
      await (obs === undefined ? h(event, ctx) : obs.runHandler(h, () => h(event, ctx)));
      return undefined;
    } catch (error) {
      return new WebhookHandlerError([error], event);
    }
  }
  const results = await Promise.allSettled(
    handlers.map(async (h) => (obs === undefined ? h(event, ctx) : obs.runHandler(h, () => h(event, ctx)))),
  );
  const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
  return errors.length === 0 ? undefined : new WebhookHandlerError(errors, event);
}

/**
 * A run's context: the delivery's, and a `signal` made on first read (most handlers never read it). A
 * class, not a literal with a spread and a getter: V8 builds such a literal on a slow path, at about ten
 * times the cost of this one (test/bench/README.md).
 */
class RunContext implements HandlerContext {
  declare readonly receivedAt: Date;
  #controller: AbortController | undefined;

  constructor(base: HandlerContext) {
    Object.assign(this, base);
  }

  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    this.#controller ??= new AbortController();
    this.#controller.abort(reason);
  }
}

/**
 * One run of the handlers, cut short by `timeouts` (`handlerTimeoutMs`): a handler that never settles
 * cannot hold its event and its message for good. The run goes on in the background (JavaScript cannot
 * stop it); `ctx.signal` tells it to stop. Receivers and queue workers both run handlers through here.
 */
export function runHandlersWithin(
  timeouts: RunTimeouts | undefined,
  handlers: readonly AnyWebhookHandler[],
  event: AnyWebhookEvent,
  base: HandlerContext,
  obs?: HandlerObserver,
): Promise<WebhookHandlerError | undefined> {
  if (timeouts === undefined) return runHandlers(handlers, event, base, obs);
  // A context per run: an earlier attempt's handlers keep their own (aborted) signal.
  const ctx = new RunContext(base);
  return new Promise((resolve, reject) => {
    const timed = timeouts.start(() => {
      const error = new HandlerTimeoutError(event, timeouts.ms);
      ctx.abort(error);
      resolve(new WebhookHandlerError([error], event));
    });
    runHandlers(handlers, event, ctx, obs).then(
      (error) => {
        timeouts.stop(timed);
        resolve(error);
      },
      (error: unknown) => {
        timeouts.stop(timed);
        reject(error); // an instrumentation that throws
      },
    );
  });
}

/**
 * A queue worker's run of an event verified elsewhere (`receiver.runHandlers`): its context from the job,
 * the receiver's `handlerTimeoutMs` (a hung job fails and is retried), and a rejection on failure.
 */
export async function runQueuedHandlers(
  timeouts: RunTimeouts | undefined,
  handlers: readonly AnyWebhookHandler[],
  event: AnyWebhookEvent,
  ctx: Partial<HandlerContext> | undefined,
  clock: Clock,
  obs?: HandlerObserver,
): Promise<void> {
  const base: HandlerContext = {
    attempt: ctx?.attempt,
    receivedAt: ctx?.receivedAt ?? new Date(clock.now()),
    claim: ctx?.claim,
  };
  // A replayed tenant's event runs on its tenant, as it did when it arrived.
  if (ctx?.tenant !== undefined) base.tenant = ctx.tenant;
  const error = await runHandlersWithin(timeouts, handlers, event, base, obs);
  if (error) throw error;
}

/**
 * A delivery's handler run and its end: the handlers (again, after a wait, when a run fails and the
 * service will not retry), then the outcome recorded in the store. Claims stay renewed throughout.
 */
export class HandlerRun {
  readonly leases: LeaseKeeper;
  readonly orderLeases: LeaseKeeper;
  /** Waits between retries still to come, so that a drain can cut them short. */
  readonly #waiting = new Set<() => void>();
  #skipWaits = false;
  /** `handlerTimeoutMs`: undefined without it. */
  readonly timeouts: RunTimeouts | undefined;
  /** With `order`: the store, with its object calls. */
  readonly #orders: OrderStore | undefined;

  constructor(
    readonly opts: ResolvedOptions,
    readonly errors: ErrorHooks,
  ) {
    const { store, leaseMs, logger, clock } = opts;
    this.leases = new LeaseKeeper(store, leaseMs, logger, clock);
    this.orderLeases = new LeaseKeeper({ renew: store.renewOrder?.bind(store) }, leaseMs, logger, clock);
    const { handlerTimeoutMs } = opts;
    this.timeouts = handlerTimeoutMs === undefined ? undefined : new RunTimeouts(handlerTimeoutMs, clock);
    this.#orders = opts.order !== undefined && supportsOrder(store) ? store : undefined;
  }

  /**
   * Runs the handlers, records the outcome and reports a failure. Resolves with the failure, if any, and
   * never rejects: a background run's promise has no one to catch it. `retries` is false when the service
   * will retry a failure itself ('after-handlers').
   */
  async runAndFinish(d: Running, retries: boolean): Promise<WebhookHandlerError | undefined> {
    const { held, obs } = d;
    const attempts = retries ? this.opts.retry.attempts : 1;
    const lease = held === undefined ? undefined : this.leases.hold(d.key, held.token);
    const order = held?.order;
    const objectLease = order === undefined ? undefined : this.orderLeases.hold(order.key, order.token);
    let error: WebhookHandlerError | undefined;
    let recorded = true;
    try {
      for (let done = 1; ; done++) {
        error = await runHandlersWithin(this.timeouts, d.handlers, d.event, d.ctx, obs);
        if (error === undefined || done >= attempts) break;
        await this.#wait(this.opts.retry.waitMs(done - 1));
      }
    } catch {
      recorded = false; // only an instrumentation that throws: the outcome is unknown, the lease runs out
    } finally {
      lease?.release();
      objectLease?.release();
    }
    if (recorded && held !== undefined) await this.finish(d, held, error === undefined);
    try {
      if (recorded && error !== undefined) this.errors.report(error);
    } catch {
      // Only a logger that throws gets here (hooks are contained). The outcome stands.
    }
    obs?.finished(error);
    return error;
  }

  /**
   * Gives a failed dispatch's claims back for the service's retry. A hand-off that may still land
   * (DispatchTimeoutError) keeps them until it settles, since once landed the queued event carries them.
   */
  async releaseAfterDispatch(d: Routed, held: Held, error: unknown): Promise<void> {
    const pending = pendingDispatch(error);
    if (pending === undefined) return this.finish(d, held, false);
    pending.then(
      () =>
        this.opts.logger.warn(
          `sms-webhooks: ${d.event.id} was handed off after its 503 (the dispatch finished late); its claim stays with the queued event.`,
        ),
      () => this.finish(d, held, false),
    );
  }

  /**
   * Success completes the record (kept `retainMs`); failure releases it so a redelivery runs it. With an
   * object slot (`order`), its version advances first: should the process die between the two, a
   * redelivery of this event ties with it and runs again, but is stale once a newer one completed, rather
   * than run over it. Never rejects.
   */
  async finish(d: Routed, held: Held, succeeded: boolean): Promise<void> {
    const { obs, event } = d;
    const { order, token } = held;
    const { retainMs } = this.opts;
    const store = this.#orders;
    try {
      if (order !== undefined && store !== undefined) {
        const { completeWithOrder } = store;
        if (succeeded && completeWithOrder !== undefined) {
          // One round trip: the version advances and the record completes together.
          const object = { key: order.key, version: order.version };
          await call(obs, 'completeWithOrder', () =>
            completeWithOrder.call(store, d.key, token, retainMs, object),
          );
          return;
        }
        if (succeeded) {
          await call(obs, 'completeOrder', () =>
            store.completeOrder(order.key, order.version, order.token, retainMs),
          );
        } else {
          await call(obs, 'releaseOrder', () => store.releaseOrder(order.key, order.token));
        }
      }
    } catch (error) {
      return this.#recordFailed(event.id, error);
    }
    await this.record(d, token, succeeded, retainMs);
  }

  /** The event's own record: completed, or released for a redelivery. Never rejects. */
  async record(d: Routed, token: string, succeeded: boolean, retainMs: number): Promise<void> {
    const { store } = this.opts;
    const { event, obs, key } = d;
    try {
      if (succeeded) await call(obs, 'complete', () => store.complete(key, token, retainMs));
      else await call(obs, 'release', () => store.release(key, token));
    } catch (error) {
      this.#recordFailed(event.id, error);
    }
  }

  /** Best effort, off the answer's path: if this fails too, the lease runs out. */
  async release(d: Routed, token: string): Promise<void> {
    try {
      await this.opts.store.release(d.key, token);
    } catch (error) {
      this.opts.logger.error(
        `sms-webhooks: dedupe store failed to release ${d.event.id}: ${describeError(error)}`,
      );
    }
  }

  /** The lease will run out on its own; a redelivery then finds the event free again. */
  #recordFailed(key: string, error: unknown): void {
    this.opts.logger.error(`sms-webhooks: dedupe store failed to record ${key}: ${describeError(error)}`);
  }

  /** While a drain (a shutdown) waits, retries run at once. */
  skipWaits(skip: boolean): void {
    this.#skipWaits = skip;
    if (skip) for (const wake of [...this.#waiting]) wake();
  }

  #wait(ms: number): Promise<void> {
    if (this.#skipWaits) return Promise.resolve();
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
