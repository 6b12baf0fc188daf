import { type Clock, systemClock } from '../base/clock.js';
import { describeError } from '../base/describe-error.js';
import { firstTime } from '../base/log-once.js';
import { isWebhookVerificationError } from '../verify/errors.js';
import type { AnyWebhookEvent } from '../verify/event-types.js';
import { type HeaderSource, parseAttempt, readHeader } from '../verify/headers.js';
import { isRawBody, rawBodyByteLength } from '../verify/parse-event.js';
import { type Verified, verifyReceived } from '../verify/verify-webhook.js';
import { ClaimStep } from './claim-step.js';
import { ConcurrencyLimit } from './concurrency-limit.js';
import type {
  Claimed,
  IncomingDelivery,
  Place,
  Routed,
  Running,
  StaleHandler,
  WaitUntil,
} from './delivery.js';
import type { Dispatch, DispatchedEvent } from './dispatch.js';
import type { ErrorHooks } from './error-hooks.js';
import {
  type HandlerContext,
  type HandlerRegistry,
  hasSchemas,
  type Registered,
} from './handler-registry.js';
import { HandlerRun } from './handler-run.js';
import { type DeliveryObserver, type InstrumentedReceiver, observeStore } from './instrumentation.js';
import { DeliveryKeeper } from './kept-deliveries.js';
import type { ResolvedOptions } from './receiver-options.js';
import type { Refusals } from './refusals.js';
import {
  IGNORED,
  payloadTooLarge,
  RAW_BODY_HINT,
  RAW_BODY_UNAVAILABLE,
  RECEIVED,
  type ReceiverResponse,
  refusal,
} from './responses.js';
import type { SchemaCheck } from './schema-check.js';

/**
 * The walk of one delivery: verify → route → check → claim (and order) → respond (or dispatch) → finish.
 * Each step is a method below, in that order (the check: schema-check.ts; the claims: claim-step.ts; the
 * run and finish: handler-run.ts).
 */
export class DeliveryPipeline {
  readonly inFlight: InFlight;
  readonly run: HandlerRun;
  readonly staleHooks: StaleHandler[] = [];
  /** `maxConcurrency`: undefined without it. */
  readonly limit: ConcurrencyLimit | undefined;
  readonly claims: ClaimStep;
  /** `keepDeliveries`: undefined when off. */
  readonly keeper: DeliveryKeeper | undefined;
  readonly #instrumented: InstrumentedReceiver;
  /** For the entries, before a body: 503 `overloaded` past `maxConcurrency` + `maxQueue` (counted). */
  readonly overloaded = (): ReceiverResponse | undefined => this.limit?.refuseIfFull();

  constructor(
    readonly opts: ResolvedOptions,
    readonly registry: HandlerRegistry,
    readonly refusals: Refusals,
    readonly errors: ErrorHooks,
    readonly schemas: SchemaCheck,
  ) {
    this.inFlight = new InFlight(opts.clock);
    this.run = new HandlerRun(opts, errors);
    this.limit = ConcurrencyLimit.of(opts.concurrency, this.run, refusals);
    this.claims = new ClaimStep(opts, this.run, refusals, errors, this.staleHooks);
    this.keeper =
      opts.keep &&
      new DeliveryKeeper(opts.keep, opts.store, opts.retainMs, () => opts.clock.now(), refusals.sampled);
    this.#instrumented = Object.freeze({
      store: opts.store.constructor?.name || 'custom',
      respond: opts.respond,
    });
  }

  /** The whole flow for one delivery, followed by the instrumentation's observer when there is one. */
  handle(incoming: IncomingDelivery): Promise<ReceiverResponse> {
    const obs = this.opts.instrumentation?.startDelivery(incoming.headers ?? {}, this.#instrumented);
    if (obs === undefined) return this.#walk(incoming, undefined);
    return this.#walk(incoming, obs).then(
      (response) => {
        // Only an accepted event in 'immediately' mode has handlers still to run after the answer.
        const { respond, dispatch } = this.opts;
        obs.answered(response, response === RECEIVED && respond === 'immediately' && dispatch === undefined);
        return response;
      },
      (error: unknown) => {
        obs.threw(error);
        throw error;
      },
    );
  }

  async #walk(incoming: IncomingDelivery, obs: DeliveryObserver | undefined): Promise<ReceiverResponse> {
    const { rawBody } = incoming;
    // Missing headers are a bad request (400 signature_missing), not a crash in the adapter.
    const headers: HeaderSource = incoming.headers ?? {};
    if (!isRawBody(rawBody)) {
      if (firstTime(this, 'raw body hint')) this.opts.logger.error(RAW_BODY_HINT);
      return this.refusals.refuse(RAW_BODY_UNAVAILABLE);
    }
    if (rawBodyByteLength(rawBody) > this.opts.maxBodyBytes) {
      return this.refusals.refuse(payloadTooLarge(this.opts.maxBodyBytes));
    }
    const verified = await this.#verify(rawBody, headers, incoming);
    if (!('event' in verified)) return verified;
    const { event, key, tenant } = verified;
    const attempt = parseAttempt(readHeader(headers, this.opts.names.attempt));
    obs?.verified(event, attempt ?? undefined);

    let handlers: readonly Registered[] | ReceiverResponse = this.registry.for(event.type);
    if (handlers.length === 0) return this.#ignore(event);
    if (hasSchemas(handlers)) handlers = await this.schemas.handlers(event, handlers, attempt);
    if ('status' in handlers) return handlers; // a handler's schema refused the payload
    const d: Routed = { event, key, tenant, handlers: handlers as Routed['handlers'], obs };
    // Kept beside the claim (one round trip, not two), and before any answer, a refusal included.
    const keeping = this.keeper?.keep(d, rawBody, attempt);
    const place = this.limit?.admit(); // a place under maxConcurrency, taken before any claim
    if (place !== undefined && 'status' in place) {
      await keeping;
      return place;
    }
    const claimed = await this.claims.claim(d);
    if (keeping !== undefined) await keeping;
    if ('status' in claimed) {
      place?.leave();
      return claimed;
    }
    try {
      const running = this.#running(claimed, place, attempt, verified.secretIndex);
      const { dispatch } = this.opts;
      if (dispatch !== undefined) return await this.#dispatch(running, dispatch);
      if (this.opts.respond === 'after-handlers') return await this.#respondAfter(running);
      return this.#respondNow(running, incoming.waitUntil);
    } catch (error) {
      // A bug past the claim (not bad input): give the claims back, so the service's retry is not 409.
      if (claimed.held !== undefined) void this.run.finish(claimed, claimed.held, false);
      place?.leave();
      throw error;
    }
  }

  /** The claimed delivery with its handlers' context. */
  #running(
    claimed: Claimed,
    place: Place | undefined,
    attempt: number | undefined | null,
    secretIndex: number,
  ): Running {
    const { event, key, tenant, handlers, obs, held, queuedOrder } = claimed;
    const ctx: HandlerContext = {
      attempt: this.#attempt(attempt, event),
      receivedAt: new Date(this.opts.clock.now()),
      claim: held === undefined ? undefined : { key, token: held.token },
      secretIndex,
    };
    if (tenant !== undefined) ctx.tenant = tenant;
    if (held?.order !== undefined) ctx.order = held.order;
    return { event, key, tenant, handlers, obs, held, queuedOrder, ctx, place };
  }

  /** Signature, freshness, envelope: the event, or the refusal to answer. */
  async #verify(
    rawBody: string | Uint8Array,
    headers: HeaderSource,
    incoming: IncomingDelivery,
  ): Promise<Verified | ReceiverResponse> {
    const now = Math.floor(this.opts.clock.now() / 1000);
    try {
      return await verifyReceived(rawBody, headers, incoming, this.opts, now);
    } catch (error) {
      if (!isWebhookVerificationError(error)) throw error;
      return this.refusals.refuse(refusal(error.code, error.message), error.detail ?? error.message);
    }
  }

  #ignore(event: AnyWebhookEvent): ReceiverResponse {
    this.refusals.sampled.warn(`ignored ${event.type} events`, () => {
      const handled = this.registry.types();
      return `${event.id} (${event.type}) acknowledged as ignored: no handler for this type. Handlers are registered for: ${
        handled.length > 0 ? handled.join(', ') : 'no type'
      }.`;
    });
    return IGNORED;
  }

  /** 'after-handlers': run, then answer. */
  async #respondAfter(d: Running): Promise<ReceiverResponse> {
    const error = await (this.limit?.run(d, false) ?? this.run.runAndFinish(d, false));
    if (error === undefined) return RECEIVED;
    return refusal('handler_failed', `A handler failed for ${d.event.id}; the service will retry.`);
  }

  /** 'immediately': ack now and run in the background. Not async: the ack waits for nothing. */
  #respondNow(d: Running, waitUntil: WaitUntil | undefined): ReceiverResponse {
    // Handlers start on a later turn, so even a synchronous one cannot hold up the ack.
    const run = laterTurn().then(() => this.limit?.run(d, true) ?? this.run.runAndFinish(d, true));
    this.inFlight.track(d.event.id, run);
    if (waitUntil !== undefined) {
      try {
        waitUntil(run);
      } catch (error) {
        // The event is accepted and its handlers run regardless; only the platform's keep-alive failed.
        this.opts.logger.error(`sms-webhooks: waitUntil failed for ${d.event.id}: ${describeError(error)}`);
      }
    }
    return RECEIVED;
  }

  /** Hands the claimed event to `dispatch`: 200 once it resolves, 503 (and the claim released) if not. */
  async #dispatch(d: Running, dispatch: Dispatch): Promise<ReceiverResponse> {
    const { event, ctx, held, obs } = d;
    const dispatched: DispatchedEvent = { event, ctx, claim: ctx.claim };
    const traceContext = obs?.traceContext?.();
    if (traceContext !== undefined) dispatched.traceContext = traceContext;
    if (d.queuedOrder !== undefined) dispatched.order = d.queuedOrder;
    try {
      await observeStore(obs, 'dispatch', () => dispatch(dispatched));
      return RECEIVED;
    } catch (error) {
      this.opts.logger.error(
        `sms-webhooks: dispatch failed, answering 503 for ${event.id}: ${describeError(error)}`,
      );
      if (held !== undefined) await this.run.releaseAfterDispatch(d, held, error);
      return this.refusals.refuse(
        refusal('store_unavailable', 'The event could not be queued; retry later.'),
      );
    }
  }

  /** The attempt header, parsed once in `#walk`; an unreadable one is warned about (sampled). */
  #attempt(attempt: number | undefined | null, event: AnyWebhookEvent): number | undefined {
    if (attempt !== null) return attempt;
    const name = this.opts.names.attempt;
    this.refusals.sampled.warn(
      'invalid delivery-attempt headers',
      () =>
        `the ${name} header of ${event.id} is not an attempt number from 1 to 6; handlers get ctx.attempt undefined.`,
    );
    return undefined;
  }
}

/** What `receiver.drain(timeoutMs)` resolves with. */
export interface DrainResult {
  /** Background tasks still running when the time-out ran out, by event id. Empty when all finished. */
  unfinished: string[];
}

/** Background handler runs ('immediately' mode), so a shutdown can wait for them. */
export class InFlight {
  readonly #runs = new Map<Promise<unknown>, string>();
  #wakeWhenIdle: (() => void)[] = [];

  constructor(readonly clock: Clock = systemClock) {}

  get size(): number {
    return this.#runs.size;
  }

  /** `run` must never reject. */
  track(eventId: string, run: Promise<unknown>): void {
    this.#runs.set(run, eventId);
    void run.then(() => {
      this.#runs.delete(run);
      if (this.#runs.size === 0) for (const wake of this.#wakeWhenIdle.splice(0)) wake();
    });
  }

  /** Resolves once nothing runs, runs started while draining included; or reports what still runs. */
  async drain(timeoutMs?: number): Promise<DrainResult> {
    if (this.#runs.size === 0) return { unfinished: [] };
    const idle = new Promise<'idle'>((resolve) => this.#wakeWhenIdle.push(() => resolve('idle')));
    if (timeoutMs === undefined) {
      await idle;
      return { unfinished: [] };
    }
    let cancel = (): void => {};
    const timedOut = new Promise<'timeout'>((resolve) => {
      cancel = this.#timer(() => resolve('timeout'), timeoutMs);
    });
    try {
      if ((await Promise.race([idle, timedOut])) === 'idle') return { unfinished: [] };
      return { unfinished: [...this.#runs.values()] };
    } finally {
      cancel();
    }
  }

  /**
   * The drain's time-out keeps the process alive (a shutdown is waiting on it), unlike the clock's own
   * timers; a test's clock drives it like any other.
   */
  #timer(fn: () => void, ms: number): () => void {
    if (this.clock !== systemClock) return this.clock.setTimer(fn, ms);
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  }
}

/**
 * A later turn of the event loop. Workers and edge runtimes have no setImmediate, and Next.js's edge
 * sandbox (which sets `EdgeRuntime`) defines one that throws: a zero timeout is their later turn.
 */
export function laterTurn(): Promise<void> {
  const edge = typeof (globalThis as { EdgeRuntime?: unknown }).EdgeRuntime === 'string';
  return new Promise((resolve) => {
    if (typeof setImmediate === 'function' && !edge) setImmediate(resolve);
    else setTimeout(resolve, 0);
  });
}
