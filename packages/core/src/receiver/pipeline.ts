import { parseAttempt } from '../verify/attempt.js';
import { isWebhookVerificationError } from '../verify/errors.js';
import type { AnyWebhookEvent } from '../verify/event-types.js';
import { type HeaderSource, readHeader } from '../verify/headers.js';
import { isRawBody, rawBodyByteLength } from '../verify/raw-body.js';
import { createVerifier, type Verifier } from '../verify/verify-webhook.js';
import type { ClaimResult } from './dedupe-store.js';
import { Delivery, type IncomingDelivery } from './delivery.js';
import { describeError, isPromiseLike } from './describe-error.js';
import { dispatchStep } from './dispatch-step.js';
import type { ErrorHooks } from './error-hooks.js';
import type { HandlerRegistry } from './handler-registry.js';
import { HandlerRun } from './handler-run.js';
import { InFlight } from './in-flight.js';
import type { DeliveryObserver, InstrumentedReceiver } from './instrumentation.js';
import { LeaseKeeper } from './lease-keeper.js';
import { firstTime } from './log-once.js';
import { OrderStep } from './order-step.js';
import { ownerToken } from './owner-token.js';
import type { ResolvedOptions } from './receiver-options.js';
import type { Refusals } from './refusals.js';
import {
  DUPLICATE,
  errorResponse,
  IGNORED,
  payloadTooLarge,
  RAW_BODY_HINT,
  RAW_BODY_UNAVAILABLE,
  RECEIVED,
  type ReceiverResponse,
  storeUnavailable,
} from './responses.js';
import { StoreSteps } from './store-steps.js';

type NextTurn = (fn: typeof runInBackground, pipeline: DeliveryPipeline, d: Delivery) => unknown;
const timeoutTurn: NextTurn = (fn, ...args) => setTimeout(fn, 0, ...args);
/**
 * Handlers start on the next turn. Workers and edge runtimes have no setImmediate, and Next.js's edge
 * sandbox (which sets `EdgeRuntime`) defines one that throws: a zero timeout is their next turn.
 */
let nextTurn: NextTurn =
  globalThis.setImmediate === undefined ||
  typeof (globalThis as { EdgeRuntime?: unknown }).EdgeRuntime === 'string'
    ? timeoutTurn
    : (globalThis.setImmediate as unknown as NextTurn);

function runInBackground(pipeline: DeliveryPipeline, d: Delivery): void {
  pipeline.run.start(d, true);
}

/**
 * The walk of one delivery: verify → route → claim → respond (or dispatch) → finish (or release). Each
 * step answers synchronously when it can (node:crypto, MemoryStore, 'immediately'): an await on a value
 * that is not a promise still costs a microtask turn, on every delivery.
 */
export class DeliveryPipeline {
  readonly inFlight: InFlight;
  readonly leases: LeaseKeeper;
  readonly store: StoreSteps;
  readonly run: HandlerRun;
  /** The `order` step; undefined when ordering is off (no cost then). */
  readonly order: OrderStep | undefined;
  readonly #verify: Verifier;
  readonly #retryAfter: Readonly<Record<string, string>>;
  readonly #instrumented: InstrumentedReceiver;

  constructor(
    readonly opts: ResolvedOptions,
    readonly registry: HandlerRegistry,
    readonly refusals: Refusals,
    readonly errors: ErrorHooks,
  ) {
    const { keys, tolerance, names, store, leaseMs, logger, respond, clock } = opts;
    this.#verify = createVerifier(keys, tolerance, names, clock);
    this.leases = new LeaseKeeper(store, leaseMs, logger, clock);
    this.inFlight = new InFlight(clock);
    this.store = new StoreSteps(store, logger);
    this.#retryAfter = { 'retry-after': String(Math.min(60, Math.ceil(leaseMs / 1000))) };
    this.order =
      opts.order === undefined
        ? undefined
        : new OrderStep(opts, this.store, refusals, errors, this.#retryAfter);
    this.run = new HandlerRun(opts, this.store, this.leases, this.order?.leases, errors, this.inFlight);
    this.#instrumented = Object.freeze({ store: store.constructor?.name || 'custom', respond });
  }

  handle(incoming: IncomingDelivery): Promise<ReceiverResponse> {
    const instrumentation = this.opts.instrumentation;
    if (instrumentation === undefined) return this.#walk(incoming, undefined);
    const obs = instrumentation.startDelivery(incoming.headers ?? {}, this.#instrumented);
    return obs === undefined ? this.#walk(incoming, undefined) : this.#observed(obs, incoming);
  }

  /**
   * `handle` with an observer following the delivery: it sees the answer, or the throw. A `then` rather
   * than an async function: one promise fewer, and under an SDK's context manager every promise is hooked.
   */
  #observed(obs: DeliveryObserver, incoming: IncomingDelivery): Promise<ReceiverResponse> {
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
    let event = this.#verifyStep(rawBody, headers);
    if (isPromiseLike(event)) event = await event;
    if (!('id' in event)) return event;
    const attempt = parseAttempt(readHeader(headers, this.opts.names.attempt));
    obs?.verified(event, attempt ?? undefined);

    const handlers = this.registry.for(event.type);
    if (handlers.length === 0) return this.#ignore(event);
    const d = new Delivery(event, handlers, headers, incoming.waitUntil, obs);

    let claimed = this.#claimStep(d);
    if (isPromiseLike(claimed)) claimed = await claimed;
    if (claimed !== undefined) return claimed;
    if (this.order !== undefined) {
      let ordered = this.order.claim(d);
      if (isPromiseLike(ordered)) ordered = await ordered;
      if (ordered !== undefined) return ordered;
    }

    try {
      d.ctx = {
        attempt: this.#attempt(attempt, d),
        receivedAt: new Date(this.opts.clock.now()),
        claim: d.token === undefined ? undefined : { key: event.id, token: d.token },
      };
      if (d.order !== undefined) d.ctx.order = d.order;
      if (this.opts.dispatch !== undefined) return dispatchStep(d, this.opts, this.store, this.refusals);
      return this.#respondStep(d);
    } catch (error) {
      // A bug past the claim (not bad input): give the claims back, so the service's retry is not 409.
      if (d.token !== undefined) void this.store.finish(event.id, d.token, false, 0, obs, d.order);
      throw error;
    }
  }

  /** Signature, freshness, envelope: the event, or the refusal to answer (a promise on Web Crypto). */
  #verifyStep(
    rawBody: string | Uint8Array,
    headers: HeaderSource,
  ): AnyWebhookEvent | ReceiverResponse | Promise<AnyWebhookEvent | ReceiverResponse> {
    try {
      const verified = this.#verify(rawBody, headers);
      return isPromiseLike(verified) ? verified.then(undefined, (e) => this.#refuseUnverified(e)) : verified;
    } catch (error) {
      return this.#refuseUnverified(error);
    }
  }

  #refuseUnverified(error: unknown): ReceiverResponse {
    if (!isWebhookVerificationError(error)) throw error;
    return this.refusals.refuse(errorResponse(error.status, error.code, error.message), error.message);
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

  /** Undefined once `d` holds the claim (or runs without one); otherwise the answer that ends it. */
  #claimStep(d: Delivery): ReceiverResponse | undefined | Promise<ReceiverResponse | undefined> {
    const token = ownerToken();
    let answer: ClaimResult | Promise<ClaimResult>;
    try {
      answer = this.store.claim(d.event, token, this.opts.leaseMs, d.obs);
    } catch (error) {
      return this.#storeFailed(d, error);
    }
    // A synchronous store (MemoryStore) answers with a string: no microtask hop for it.
    if (typeof answer === 'string') return this.#claimed(d, answer, token);
    return Promise.resolve(answer).then(
      (claimed) => this.#claimed(d, claimed, token),
      (error) => this.#storeFailed(d, error),
    );
  }

  #claimed(d: Delivery, claimed: ClaimResult, token: string): ReceiverResponse | undefined {
    if (claimed === 'claimed') {
      d.token = token;
      return undefined;
    }
    if (claimed === 'completed') return DUPLICATE;
    const message = `Event ${d.event.id} is being processed right now; retry later.`;
    return this.refusals.refuse(errorResponse(409, 'in_flight', message, this.#retryAfter));
  }

  #storeFailed(d: Delivery, error: unknown): ReceiverResponse | undefined {
    const { logger, onStoreError } = this.opts;
    if (onStoreError === 'reject') {
      logger.error(
        `sms-webhooks: dedupe store unavailable, answering 503 for ${d.event.id}: ${describeError(error)}`,
      );
      const message = 'The dedupe store is unavailable; retry later.';
      return this.refusals.refuse(storeUnavailable(message));
    }
    logger.warn(
      `sms-webhooks: dedupe store unavailable, processing ${d.event.id} without dedupe: ${describeError(error)}`,
    );
    return undefined;
  }

  /** 'immediately': ack now and run in the background; 'after-handlers': run, then answer. */
  #respondStep(d: Delivery): ReceiverResponse | Promise<ReceiverResponse> {
    if (this.opts.respond === 'after-handlers') {
      return this.run
        .runAndFinish(d, false)
        .then((error) =>
          error
            ? errorResponse(
                500,
                'handler_failed',
                `A handler failed for ${d.event.id}; the service will retry.`,
              )
            : RECEIVED,
        );
    }
    const { waitUntil } = d;
    d.run = this.inFlight.start(d.event.id, waitUntil !== undefined);
    // Handlers start on the next turn, so even a synchronous one cannot hold up the ack.
    try {
      nextTurn(runInBackground, this, d);
    } catch {
      // A sandbox whose setImmediate throws when called: from now on, a zero timeout.
      nextTurn = timeoutTurn;
      nextTurn(runInBackground, this, d);
    }
    if (waitUntil !== undefined) {
      try {
        waitUntil(d.run.done!);
      } catch (error) {
        // The event is accepted and its handlers run regardless; only the platform's keep-alive failed.
        this.opts.logger.error(`sms-webhooks: waitUntil failed for ${d.event.id}: ${describeError(error)}`);
      }
    }
    return RECEIVED;
  }

  /** The attempt header, parsed once in `#walk`; an unreadable one is warned about (sampled). */
  #attempt(attempt: number | undefined | null, d: Delivery): number | undefined {
    if (attempt !== null) return attempt;
    const name = this.opts.names.attempt;
    this.refusals.sampled.warn(
      'invalid delivery-attempt headers',
      () =>
        `the ${name} header of ${d.event.id} is not an attempt number from 1 to 6; handlers get ctx.attempt undefined.`,
    );
    return undefined;
  }
}
