import { parseAttempt } from '../verify/attempt.js';
import { closestName } from '../verify/closest-name.js';
import type { Awaitable, ClaimResult } from './dedupe-store.js';
import { type Dispatch, type DispatchedEvent, pendingDispatch } from './dispatch.js';
import { isWebhookVerificationError } from '../verify/errors.js';
import type { AnyWebhookEvent, EventType } from '../verify/event-types.js';
import { EVENT_TYPES, isKnownEventType } from '../verify/event-types.js';
import { WebhookHandlerError } from './handler-error.js';
import {
  type AnyWebhookHandler,
  type HandlerContext,
  HandlerRegistry,
  type WebhookHandler,
} from './handler-registry.js';
import { type HeaderSource, readHeader } from '../verify/headers.js';
import { type BackgroundRun, type DrainResult, InFlight } from './in-flight.js';
import type {
  DeliveryObserver,
  HandlerObserver,
  Instrumentation,
  InstrumentedReceiver,
  TraceContext,
} from './instrumentation.js';
import { LeaseKeeper } from './lease-keeper.js';
import { ownerToken } from './owner-token.js';
import { isRawBody, rawBodyByteLength } from '../verify/raw-body.js';
import { type ReceiverOptions, type ResolvedOptions, resolveOptions } from './receiver-options.js';
import {
  DUPLICATE,
  errorResponse,
  IGNORED,
  payloadTooLarge,
  RAW_BODY_HINT,
  RAW_BODY_UNAVAILABLE,
  RECEIVED,
  type ReceiverResponse,
} from './responses.js';
import { SampledLog } from './sampled-log.js';
import { createVerifier, type Verifier } from '../verify/verify-webhook.js';

export interface IncomingDelivery {
  /** The body exactly as received. Anything else (a parsed object) is answered 500 raw_body_unavailable. */
  rawBody: unknown;
  headers: HeaderSource;
  /**
   * For platforms that freeze after the response (Vercel, Cloudflare): given the background handler run
   * of an accepted event ('immediately' mode), e.g. `ctx.waitUntil`. The promise never rejects.
   */
  waitUntil?: (promise: Promise<unknown>) => void;
}

export type ErrorHandler = (error: WebhookHandlerError) => unknown;

/** One refused request, as `onRefused` hooks see it: the answer's status and stable code. */
export interface Refusal {
  status: number;
  code: string;
}

export type RefusalHandler = (refusal: Refusal) => unknown;

export interface Receiver {
  /** Resolved settings tools may show and adapters read. */
  readonly options: Readonly<
    Pick<
      ResolvedOptions,
      'maxBodyBytes' | 'bodyTimeoutMs' | 'respond' | 'logger' | 'store' | 'retainMs' | 'leaseMs'
    >
  >;
  on<T extends EventType>(type: T | readonly T[], handler: WebhookHandler<T>): Receiver;
  /** Runs for every verified event, including types this version does not know yet. */
  onAny(handler: AnyWebhookHandler): Receiver;
  off<T extends EventType>(
    type: T | readonly T[] | '*',
    handler: WebhookHandler<T> | AnyWebhookHandler,
  ): Receiver;
  /** Called with every handler failure; a hook that throws is logged, never rethrown. */
  onError(handler: ErrorHandler): Receiver;
  /**
   * Called for every refused request (4xx and 5xx answers before any handler ran), for metrics: the
   * log only gets the first of each code and then one summary line per code every 10 s.
   */
  onRefused(handler: RefusalHandler): Receiver;
  /**
   * Hands a failure that happened outside `handle` (a queue worker's exhausted job) to the `onError`
   * hooks, through the same path as the receiver's own: hooks are contained, and with none it is logged.
   */
  reportError(error: WebhookHandlerError): void;
  /** The whole flow for one delivery: verify, route, claim, respond, finish. Never rejects for bad input. */
  handle(delivery: IncomingDelivery): Promise<ReceiverResponse>;
  /**
   * Runs this receiver's handlers for an event verified elsewhere (a queue worker after `dispatch`):
   * no verification, no dedupe, no onError. Rejects with a WebhookHandlerError when any handler fails.
   * `queued.traceContext` is the one `dispatch` was given, for the instrumentation to link the run to.
   */
  runHandlers(
    event: AnyWebhookEvent,
    ctx?: Partial<HandlerContext>,
    queued?: { traceContext?: TraceContext },
  ): Promise<void>;
  /** Waits for background handlers; with a time-out, reports the event ids still running. */
  drain(timeoutMs?: number): Promise<DrainResult>;
  /** `drain`, then the store's `shutdown`. */
  close(timeoutMs?: number): Promise<DrainResult>;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

type NextTurn = (fn: typeof WebhookReceiver.run, ...args: Parameters<typeof WebhookReceiver.run>) => unknown;
/** Workers and edge runtimes have no setImmediate; a zero timeout is their next turn. */
const nextTurn: NextTurn =
  (globalThis.setImmediate as NextTurn | undefined) ?? ((fn, ...args) => setTimeout(fn, 0, ...args));

const STORE_UNAVAILABLE_RETRY = { 'retry-after': '30' };

/** What the claim step comes to: the claim's token, or the answer that ends the delivery. */
type ClaimOutcome = { token: string | undefined } | ReceiverResponse;

const BOUND_METHODS = [
  'handle',
  'on',
  'onAny',
  'off',
  'onError',
  'onRefused',
  'reportError',
  'runHandlers',
  'drain',
  'close',
] as const;

class WebhookReceiver implements Receiver {
  readonly options: Receiver['options'];
  readonly #opts: ResolvedOptions;
  readonly #verify: Verifier;
  readonly #registry = new HandlerRegistry();
  readonly #errorHooks: ErrorHandler[] = [];
  readonly #refusalHooks: RefusalHandler[] = [];
  readonly #inFlight = new InFlight();
  readonly #leases: LeaseKeeper;
  readonly #sampled: SampledLog;
  readonly #retryAfter: Readonly<Record<string, string>>;
  readonly #instrumentation: Instrumentation | undefined;
  readonly #instrumented: InstrumentedReceiver;
  #storeReady: Promise<void> | undefined;

  constructor(options: ReceiverOptions) {
    const opts = resolveOptions(options);
    this.#opts = opts;
    this.#verify = createVerifier(opts.keys, opts.tolerance, opts.names);
    this.#leases = new LeaseKeeper(opts.store, opts.leaseMs, opts.logger);
    this.#sampled = new SampledLog(opts.logger);
    this.#retryAfter = { 'retry-after': String(Math.min(60, Math.ceil(opts.leaseMs / 1000))) };
    const { maxBodyBytes, bodyTimeoutMs, respond, logger, store, retainMs, leaseMs } = opts;
    this.options = { maxBodyBytes, bodyTimeoutMs, respond, logger, store, retainMs, leaseMs };
    this.#instrumentation = opts.instrumentation;
    this.#instrumented = Object.freeze({ store: store.constructor?.name || 'custom', respond });
    // The receiver's methods work detached (`app.post(path, receiver.handle)`, `const { on } = receiver`),
    // as they did when the receiver was a plain object of closures.
    for (const name of BOUND_METHODS) (this as Record<string, unknown>)[name] = this[name].bind(this);
    if (store.localKeys && globalThis.process?.env?.NODE_ENV === 'production') {
      logger.warn(
        'sms-webhooks: the dedupe store keeps its records in this process only (MemoryStore). With more than one ' +
          'instance a redelivery can reach another instance and run twice: use RedisStore from @sms-webhooks/redis.',
      );
    }
  }

  // ---- the steps of one delivery ----

  handle(delivery: IncomingDelivery): Promise<ReceiverResponse> {
    const instrumentation = this.#instrumentation;
    return instrumentation === undefined
      ? this.#handle(delivery, undefined)
      : this.#observe(instrumentation, delivery);
  }

  /** `handle` with an observer following the delivery: it sees the answer, or the throw. */
  async #observe(instrumentation: Instrumentation, delivery: IncomingDelivery): Promise<ReceiverResponse> {
    const observer = instrumentation.startDelivery(delivery.headers ?? {}, this.#instrumented);
    let response: ReceiverResponse;
    try {
      response = await this.#handle(delivery, observer);
    } catch (error) {
      observer.threw(error);
      throw error;
    }
    // Only an accepted event in 'immediately' mode has handlers still to run after the answer.
    const { respond, dispatch } = this.#opts;
    observer.answered(response, response === RECEIVED && respond === 'immediately' && dispatch === undefined);
    return response;
  }

  async #handle(delivery: IncomingDelivery, obs: DeliveryObserver | undefined): Promise<ReceiverResponse> {
    const { rawBody } = delivery;
    // Missing headers are a bad request (400 signature_missing), not a crash in the adapter.
    const headers: HeaderSource = delivery.headers ?? {};
    if (!isRawBody(rawBody)) {
      this.#opts.logger.error(RAW_BODY_HINT);
      return this.refuse(RAW_BODY_UNAVAILABLE);
    }
    if (rawBodyByteLength(rawBody) > this.#opts.maxBodyBytes) {
      return this.refuse(payloadTooLarge(this.#opts.maxBodyBytes));
    }
    // Each step answers synchronously when it can (node:crypto, MemoryStore, 'immediately'): an await
    // on a value that is not a promise still costs a microtask turn, on every delivery.
    let event = this.#verifyStep(rawBody, headers);
    if (isPromiseLike(event)) event = await event;
    if (!('id' in event)) return event;
    if (obs !== undefined) {
      obs.verified(event, parseAttempt(readHeader(headers, this.#opts.names.attempt)) ?? undefined);
    }

    const handlers = this.#registry.for(event.type);
    if (handlers.length === 0) return this.#ignore(event);

    let claim = this.#claimStep(event, obs);
    if (isPromiseLike(claim)) claim = await claim;
    if ('status' in claim) return claim;

    const ctx: HandlerContext = {
      attempt: this.#attempt(headers, event),
      receivedAt: new Date(),
      claim: claim.token === undefined ? undefined : { key: event.id, token: claim.token },
    };
    return this.#respondStep(handlers, event, ctx, claim.token, delivery.waitUntil, obs);
  }

  /** Signature, freshness, envelope: the event, or the refusal to answer (a promise on Web Crypto). */
  #verifyStep(
    rawBody: string | Uint8Array,
    headers: HeaderSource,
  ): AnyWebhookEvent | ReceiverResponse | Promise<AnyWebhookEvent | ReceiverResponse> {
    try {
      const verified = this.#verify(rawBody, headers);
      return isPromiseLike(verified)
        ? verified.then(undefined, (error) => this.#refuseUnverified(error))
        : verified;
    } catch (error) {
      return this.#refuseUnverified(error);
    }
  }

  #refuseUnverified(error: unknown): ReceiverResponse {
    if (!isWebhookVerificationError(error)) throw error;
    return this.refuse(errorResponse(error.status, error.code, error.message), error.message);
  }

  /** The claim's token (undefined: the store is down and `onStoreError: 'process'`), or the answer. */
  #claimStep(
    event: AnyWebhookEvent,
    obs: DeliveryObserver | undefined,
  ): ClaimOutcome | Promise<ClaimOutcome> {
    const { store, leaseMs } = this.#opts;
    const token = ownerToken();
    let answer: Awaitable<ClaimResult>;
    try {
      const ready = this.#initStore();
      answer =
        obs !== undefined
          ? ready
            ? ready.then(() => obs.store('claim', () => store.claim(event.id, token, leaseMs)))
            : obs.store('claim', () => store.claim(event.id, token, leaseMs))
          : ready
            ? ready.then(() => store.claim(event.id, token, leaseMs))
            : store.claim(event.id, token, leaseMs);
    } catch (error) {
      return this.#storeFailed(event, error);
    }
    // A synchronous store (MemoryStore) answers with a string: no microtask hop for it.
    if (typeof answer === 'string') return this.#claimed(event, answer, token);
    return Promise.resolve(answer).then(
      (claimed) => this.#claimed(event, claimed, token),
      (error) => this.#storeFailed(event, error),
    );
  }

  #claimed(event: AnyWebhookEvent, claimed: ClaimResult, token: string): ClaimOutcome {
    if (claimed === 'claimed') return { token };
    if (claimed === 'completed') return DUPLICATE;
    return this.refuse(
      errorResponse(
        409,
        'in_flight',
        `Event ${event.id} is being processed right now; retry later.`,
        this.#retryAfter,
      ),
    );
  }

  #storeFailed(event: AnyWebhookEvent, error: unknown): ClaimOutcome {
    const { logger } = this.#opts;
    if (this.#opts.onStoreError === 'reject') {
      logger.error(
        `sms-webhooks: dedupe store unavailable, answering 503 for ${event.id}: ${describe(error)}`,
      );
      return this.refuse(
        errorResponse(
          503,
          'store_unavailable',
          'The dedupe store is unavailable; retry later.',
          STORE_UNAVAILABLE_RETRY,
        ),
      );
    }
    logger.warn(
      `sms-webhooks: dedupe store unavailable, processing ${event.id} without dedupe: ${describe(error)}`,
    );
    return { token: undefined };
  }

  /** 'immediately': ack now and run in the background; 'after-handlers': run, then answer. */
  #respondStep(
    handlers: readonly AnyWebhookHandler[],
    event: AnyWebhookEvent,
    ctx: HandlerContext,
    token: string | undefined,
    waitUntil: IncomingDelivery['waitUntil'],
    obs: DeliveryObserver | undefined,
  ): ReceiverResponse | Promise<ReceiverResponse> {
    if (this.#opts.dispatch) return this.#dispatchStep(this.#opts.dispatch, event, ctx, token, obs);
    if (this.#opts.respond === 'after-handlers') {
      return this.#runAndFinish(handlers, event, ctx, token, undefined, obs).then((error) =>
        error
          ? errorResponse(500, 'handler_failed', `A handler failed for ${event.id}; the service will retry.`)
          : RECEIVED,
      );
    }
    const run = this.#inFlight.start(event.id, waitUntil !== undefined);
    // Handlers start on the next turn, so even a synchronous one cannot hold up the ack.
    nextTurn(WebhookReceiver.run, this, handlers, event, ctx, token, run, obs);
    if (waitUntil !== undefined) {
      try {
        waitUntil(run.done!);
      } catch (error) {
        // The event is accepted and its handlers run regardless; only the platform's keep-alive failed.
        this.#opts.logger.error(`sms-webhooks: waitUntil failed for ${event.id}: ${describe(error)}`);
      }
    }
    return RECEIVED;
  }

  /**
   * Runs the handlers, then records the outcome in the store (finish); resolves with the failure, if
   * any, and never rejects: a background run's promise has no one to catch it.
   */
  async #runAndFinish(
    handlers: readonly AnyWebhookHandler[],
    event: AnyWebhookEvent,
    ctx: HandlerContext,
    token: string | undefined,
    run: BackgroundRun | undefined,
    obs: DeliveryObserver | undefined,
  ): Promise<WebhookHandlerError | undefined> {
    let error: WebhookHandlerError | undefined;
    const lease = token === undefined ? undefined : this.#leases.hold(event.id, token);
    try {
      error = await runHandlers(handlers, event, ctx, obs);
      this.#leases.release(lease);
      if (token !== undefined) await this.#finishStep(event, token, error, obs);
      if (error) this.reportError(error);
      return error;
    } catch {
      // Only a logger that throws gets here (hooks are contained). The outcome stands.
      return error;
    } finally {
      this.#leases.release(lease);
      obs?.finished(error);
      if (run) this.#inFlight.finish(run, error);
    }
  }

  /** Success completes the record (kept `retainMs`); failure releases it so a redelivery runs it. */
  async #finishStep(
    event: AnyWebhookEvent,
    token: string,
    error: WebhookHandlerError | undefined,
    obs: DeliveryObserver | undefined,
  ): Promise<void> {
    const { store, retainMs } = this.#opts;
    try {
      const recorded =
        obs !== undefined
          ? obs.store(error ? 'release' : 'complete', () =>
              error ? store.release(event.id, token) : store.complete(event.id, token, retainMs),
            )
          : error
            ? store.release(event.id, token)
            : store.complete(event.id, token, retainMs);
      if (isPromiseLike(recorded)) await recorded;
    } catch (e) {
      // The lease will run out on its own; a redelivery then finds the event free again.
      this.#opts.logger.error(`sms-webhooks: dedupe store failed to record ${event.id}: ${describe(e)}`);
    }
  }

  async #dispatchStep(
    dispatch: Dispatch,
    event: AnyWebhookEvent,
    ctx: HandlerContext,
    token: string | undefined,
    obs: DeliveryObserver | undefined,
  ): Promise<ReceiverResponse> {
    const { logger } = this.#opts;
    try {
      const dispatched: DispatchedEvent = {
        event,
        ctx,
        claim: token === undefined ? undefined : { key: event.id, token },
      };
      const traceContext = obs?.traceContext?.();
      if (traceContext !== undefined) dispatched.traceContext = traceContext;
      await (obs === undefined ? dispatch(dispatched) : obs.store('dispatch', () => dispatch(dispatched)));
      return RECEIVED;
    } catch (error) {
      logger.error(`sms-webhooks: dispatch failed, answering 503 for ${event.id}: ${describe(error)}`);
      if (token !== undefined) await this.#releaseAfterDispatch(event.id, token, error);
      return this.refuse(
        errorResponse(
          503,
          'store_unavailable',
          'The event could not be queued; retry later.',
          STORE_UNAVAILABLE_RETRY,
        ),
      );
    }
  }

  // ---- helpers of the steps ----

  /**
   * Gives a failed dispatch's claim back for the service's retry, best effort: if this fails too, the
   * lease runs out. A hand-off that may still land (DispatchTimeoutError) keeps it until it settles,
   * since once landed the queued event carries that claim.
   */
  #releaseAfterDispatch(id: string, token: string, error: unknown): Promise<unknown> | undefined {
    const { logger, store } = this.#opts;
    const release = () =>
      Promise.resolve()
        .then(() => store.release(id, token))
        .catch((e) => logger.error(`sms-webhooks: dedupe store failed to release ${id}: ${describe(e)}`));
    const pending = pendingDispatch(error);
    if (pending === undefined) return release();
    pending.then(
      () =>
        logger.warn(
          `sms-webhooks: ${id} was handed off after its 503 (the dispatch finished late); its claim stays with the queued event.`,
        ),
      release,
    );
    return undefined;
  }

  #initStore(): Promise<void> | undefined {
    const { store } = this.#opts;
    if (store.init === undefined) return undefined;
    this.#storeReady ??= Promise.resolve(store.init()).catch((error) => {
      this.#storeReady = undefined; // try again on the next delivery
      throw error;
    });
    return this.#storeReady;
  }

  #attempt(headers: HeaderSource, event: AnyWebhookEvent): number | undefined {
    const name = this.#opts.names.attempt;
    const attempt = parseAttempt(readHeader(headers, name));
    if (attempt !== null) return attempt;
    this.#sampled.warn(
      'invalid delivery-attempt headers',
      () =>
        `the ${name} header of ${event.id} is not an attempt number from 1 to 6; handlers get ctx.attempt undefined.`,
    );
    return undefined;
  }

  #ignore(event: AnyWebhookEvent): ReceiverResponse {
    this.#sampled.warn(`ignored ${event.type} events`, () => {
      const handled = this.#registry.types();
      return `${event.id} (${event.type}) acknowledged as ignored: no handler for this type. Handlers are registered for: ${
        handled.length > 0 ? handled.join(', ') : 'no type'
      }.`;
    });
    return IGNORED;
  }

  /**
   * Counts a refusal for the hooks and the sampled log, and returns the answer. For adapters too: the
   * Node and Web entries refuse 405, 408 and 413 through here.
   */
  refuse(response: ReceiverResponse, detail?: string): ReceiverResponse {
    const code = (response.json as { error?: { code?: string } }).error?.code ?? 'unknown';
    this.#sampled.warn(`${code} refusals`, () => `delivery refused (${code}): ${detail ?? response.status}`);
    for (const hook of this.#refusalHooks) {
      try {
        const result = hook({ status: response.status, code });
        if (isPromiseLike(result)) Promise.resolve(result).catch((e) => this.#hookFailed('onRefused', e));
      } catch (e) {
        this.#hookFailed('onRefused', e);
      }
    }
    return response;
  }

  /** `refuse` for an answer given before `handle` (an adapter's 405, 408, 413): instrumentation counts it. */
  refuseUnread(response: ReceiverResponse): ReceiverResponse {
    const refused = this.#instrumentation?.refused;
    if (refused !== undefined) {
      const code = (response.json as { error?: { code?: string } }).error?.code ?? 'unknown';
      refused.call(this.#instrumentation, code, response.status);
    }
    return this.refuse(response);
  }

  #hookFailed(name: string, error: unknown): void {
    this.#opts.logger.error(`sms-webhooks: an ${name} hook failed: ${describe(error)}`);
  }

  // ---- the public surface ----

  on<T extends EventType>(type: T | readonly T[], handler: WebhookHandler<T>): Receiver {
    if (typeof handler !== 'function')
      throw new TypeError('sms-webhooks: on(type, handler) needs a function.');
    for (const t of typesOf(type)) {
      this.#warnIfUnknown(t);
      this.#registry.add(t, handler as AnyWebhookHandler);
    }
    return this;
  }

  #warnIfUnknown(type: string): void {
    if (isKnownEventType(type)) return;
    const near = closestName(type, EVENT_TYPES);
    this.#opts.logger.warn(
      `sms-webhooks: on(${JSON.stringify(type)}) is not a known event type${
        near ? `; did you mean '${near}'?` : '.'
      } Known types: ${EVENT_TYPES.join(', ')}. (A type newer than this version works; use onAny to see every event.)`,
    );
  }

  onAny(handler: AnyWebhookHandler): Receiver {
    if (typeof handler !== 'function') throw new TypeError('sms-webhooks: onAny(handler) needs a function.');
    this.#registry.addAny(handler);
    return this;
  }

  off<T extends EventType>(
    type: T | readonly T[] | '*',
    handler: WebhookHandler<T> | AnyWebhookHandler,
  ): Receiver {
    for (const t of typesOf(type)) this.#registry.remove(t, handler as AnyWebhookHandler);
    return this;
  }

  onError(handler: ErrorHandler): Receiver {
    if (typeof handler !== 'function')
      throw new TypeError('sms-webhooks: onError(handler) needs a function.');
    this.#errorHooks.push(handler);
    return this;
  }

  onRefused(handler: RefusalHandler): Receiver {
    if (typeof handler !== 'function')
      throw new TypeError('sms-webhooks: onRefused(handler) needs a function.');
    this.#refusalHooks.push(handler);
    return this;
  }

  reportError(error: WebhookHandlerError): void {
    if (this.#errorHooks.length === 0) {
      this.#opts.logger.error(`sms-webhooks: ${error.message}`);
      return;
    }
    for (const hook of this.#errorHooks) {
      try {
        Promise.resolve(hook(error)).catch((e) => this.#hookFailed('onError', e));
      } catch (e) {
        this.#hookFailed('onError', e);
      }
    }
  }

  runHandlers(
    event: AnyWebhookEvent,
    ctx?: Partial<HandlerContext>,
    queued?: { traceContext?: TraceContext },
  ): Promise<void> {
    const instrumentation = this.#instrumentation;
    if (instrumentation?.runQueued === undefined) return this.#runQueued(event, ctx);
    // The worker's side of the instrumentation: the job's span, linked to its delivery.
    return instrumentation.runQueued({ event, traceContext: queued?.traceContext }, (handlers) =>
      this.#runQueued(event, ctx, handlers),
    );
  }

  async #runQueued(
    event: AnyWebhookEvent,
    ctx: Partial<HandlerContext> | undefined,
    obs?: HandlerObserver,
  ): Promise<void> {
    const error = await runHandlers(
      this.#registry.for(event.type),
      event,
      { attempt: ctx?.attempt, receivedAt: ctx?.receivedAt ?? new Date(), claim: ctx?.claim },
      obs,
    );
    if (error) throw error;
  }

  async drain(timeoutMs?: number): Promise<DrainResult> {
    const result = await this.#inFlight.drain(timeoutMs);
    if (result.unfinished.length > 0) {
      this.#opts.logger.warn(
        `sms-webhooks: drain timed out with ${result.unfinished.length} handler run(s) unfinished: ${result.unfinished.join(', ')}`,
      );
    }
    return result;
  }

  async close(timeoutMs?: number): Promise<DrainResult> {
    const result = await this.drain(timeoutMs);
    await this.#opts.store.shutdown?.();
    return result;
  }

  /** A background run, started by `nextTurn` (a static method: a timer cannot call a private one). */
  static run(
    receiver: WebhookReceiver,
    handlers: readonly AnyWebhookHandler[],
    event: AnyWebhookEvent,
    ctx: HandlerContext,
    token: string | undefined,
    run: BackgroundRun,
    obs: DeliveryObserver | undefined,
  ): void {
    void receiver.#runAndFinish(handlers, event, ctx, token, run, obs);
  }
}

/** Every handler runs; their failures come back as one error. No await on what is not a promise. */
async function runHandlers(
  handlers: readonly AnyWebhookHandler[],
  event: AnyWebhookEvent,
  ctx: HandlerContext,
  obs?: HandlerObserver,
): Promise<WebhookHandlerError | undefined> {
  if (handlers.length === 1) {
    try {
      const handler = handlers[0]!;
      const result =
        obs === undefined ? handler(event, ctx) : obs.runHandler(handler, () => handler(event, ctx));
      if (isPromiseLike(result)) await result;
      return undefined;
    } catch (e) {
      return new WebhookHandlerError([e], event);
    }
  }
  const results = await Promise.allSettled(
    handlers.map(async (h) => (obs === undefined ? h(event, ctx) : obs.runHandler(h, () => h(event, ctx)))),
  );
  const errors = results
    .filter((r) => r.status === 'rejected')
    .map((r) => (r as PromiseRejectedResult).reason);
  return errors.length === 0 ? undefined : new WebhookHandlerError(errors, event);
}

function typesOf(type: string | readonly string[]): readonly string[] {
  return typeof type === 'string' ? [type] : type;
}

/** Counts and logs a refusal an adapter answers itself (405, 408, 413 while reading). */
export function refuse(receiver: Receiver, response: ReceiverResponse): ReceiverResponse {
  return receiver instanceof WebhookReceiver ? receiver.refuseUnread(response) : response;
}

export function createReceiver(options: ReceiverOptions): Receiver {
  return new WebhookReceiver(options);
}
