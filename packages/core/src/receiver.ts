import type { Awaitable, ClaimResult } from './dedupe-store.js';
import type { Dispatch } from './dispatch.js';
import { isWebhookVerificationError } from './errors.js';
import type { AnyWebhookEvent, EventType } from './event-types.js';
import { WebhookHandlerError } from './handler-error.js';
import {
  type AnyWebhookHandler,
  type HandlerContext,
  HandlerRegistry,
  type WebhookHandler,
} from './handler-registry.js';
import { type HeaderSource, readHeader } from './headers.js';
import { type BackgroundRun, type DrainResult, InFlight } from './in-flight.js';
import { ownerToken } from './owner-token.js';
import { isRawBody, rawBodyByteLength } from './raw-body.js';
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
import { createVerifier } from './verify-webhook.js';

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

export interface Receiver {
  /** Resolved settings adapters need (body limit) and tools may show. */
  readonly options: Readonly<
    Pick<
      ResolvedOptions,
      | 'maxBodyBytes'
      | 'bodyTimeoutMs'
      | 'bodyBudget'
      | 'respond'
      | 'names'
      | 'logger'
      | 'store'
      | 'retainMs'
      | 'leaseMs'
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
   * Hands a failure that happened outside `handle` (a queue worker's exhausted job) to the `onError`
   * hooks, through the same path as the receiver's own: hooks are contained, and with none it is logged.
   */
  reportError(error: WebhookHandlerError): void;
  /** The whole flow for one delivery: verify, parse, route, claim, respond, finish. Never rejects for bad input. */
  handle(delivery: IncomingDelivery): Promise<ReceiverResponse>;
  /**
   * Runs this receiver's handlers for an event verified elsewhere (a queue worker after `dispatch`):
   * no verification, no dedupe, no onError. Rejects with a WebhookHandlerError when any handler fails.
   */
  runHandlers(event: AnyWebhookEvent, ctx?: Partial<HandlerContext>): Promise<void>;
  /** Waits for background handlers; with a time-out, reports the event ids still running. */
  drain(timeoutMs?: number): Promise<DrainResult>;
  /** `drain`, then the store's `shutdown`. */
  close(timeoutMs?: number): Promise<DrainResult>;
}

/** The delivery-attempt header as a number (1 to 6 from the service), or undefined when absent or odd. */
function parseAttempt(value: string | readonly string[] | undefined): number | undefined {
  const text = typeof value === 'string' ? value : value?.[0];
  if (text === undefined || text.length === 0 || text.length > 3) return undefined;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    n = n * 10 + digit;
  }
  return n;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

export function createReceiver(options: ReceiverOptions): Receiver {
  const opts = resolveOptions(options);
  const { store, logger, names, leaseMs, retainMs, maxBodyBytes, bodyTimeoutMs, bodyBudget } = opts;
  const verify = createVerifier(opts.keys, opts.tolerance, names);
  const registry = new HandlerRegistry();
  const errorHandlers: ErrorHandler[] = [];
  const inFlight = new InFlight();
  const afterHandlers = opts.respond === 'after-handlers';
  const retryAfter = String(Math.min(60, Math.ceil(leaseMs / 1000)));
  let storeReady: Promise<void> | undefined;

  if (store.localKeys && globalThis.process?.env?.NODE_ENV === 'production') {
    logger.warn(
      'sms-webhooks: the dedupe store keeps its records in this process only (MemoryStore). With more than one ' +
        'instance a redelivery can reach another instance and run twice: use RedisStore from @sms-webhooks/redis.',
    );
  }

  function initStore(): Promise<void> | undefined {
    if (store.init === undefined) return undefined;
    storeReady ??= Promise.resolve(store.init()).catch((error) => {
      storeReady = undefined; // try again on the next delivery
      throw error;
    });
    return storeReady;
  }

  function reportError(error: WebhookHandlerError): void {
    if (errorHandlers.length === 0) {
      logger.error(`sms-webhooks: ${error.message}`);
      return;
    }
    for (const hook of errorHandlers) {
      try {
        Promise.resolve(hook(error)).catch((e) =>
          logger.error(`sms-webhooks: an onError hook failed: ${describe(e)}`),
        );
      } catch (e) {
        logger.error(`sms-webhooks: an onError hook failed: ${describe(e)}`);
      }
    }
  }

  async function runAll(
    handlers: readonly AnyWebhookHandler[],
    event: AnyWebhookEvent,
    ctx: HandlerContext,
  ): Promise<WebhookHandlerError | undefined> {
    const results = await Promise.allSettled(handlers.map(async (h) => h(event, ctx)));
    const errors = results
      .filter((r) => r.status === 'rejected')
      .map((r) => (r as PromiseRejectedResult).reason);
    return errors.length === 0 ? undefined : new WebhookHandlerError(errors, event);
  }

  /**
   * Runs the handlers, then records the outcome in the store; resolves with the failure, if any, and
   * never rejects. One async function for the whole run, and no await on what is not a promise (a
   * synchronous handler, MemoryStore): this runs for every accepted event. With `run`, it is a
   * background run and is reported finished to the in-flight set.
   */
  async function process(
    handlers: readonly AnyWebhookHandler[],
    event: AnyWebhookEvent,
    ctx: HandlerContext,
    token: string | undefined,
    run?: BackgroundRun,
  ): Promise<WebhookHandlerError | undefined> {
    let error: WebhookHandlerError | undefined;
    try {
      if (handlers.length === 1) {
        try {
          const result = handlers[0]!(event, ctx);
          if (isPromiseLike(result)) await result;
        } catch (e) {
          error = new WebhookHandlerError([e], event);
        }
      } else {
        error = await runAll(handlers, event, ctx);
      }
      if (token !== undefined) {
        try {
          const recorded = error ? store.release(event.id, token) : store.complete(event.id, token, retainMs);
          if (isPromiseLike(recorded)) await recorded;
        } catch (e) {
          // The lease will run out on its own; a redelivery then finds the event free again.
          logger.error(`sms-webhooks: dedupe store failed to record ${event.id}: ${describe(e)}`);
        }
      }
      if (error) reportError(error);
      return error;
    } catch {
      // Only a logger that throws gets here (hooks are contained). The outcome stands, and nothing may
      // escape: a background run's promise has no one to catch it, and would crash the process.
      return error;
    } finally {
      if (run) inFlight.finish(run, error);
    }
  }

  /** May throw or reject: both mean the store is unavailable. */
  function claim(eventId: string, token: string): Awaitable<ClaimResult> {
    const ready = initStore();
    return ready
      ? ready.then(() => store.claim(eventId, token, leaseMs))
      : store.claim(eventId, token, leaseMs);
  }

  async function handle(delivery: IncomingDelivery): Promise<ReceiverResponse> {
    const { rawBody } = delivery;
    // Missing headers are a bad request (400 signature_missing), not a crash in the adapter.
    const headers: HeaderSource = delivery.headers ?? {};
    if (!isRawBody(rawBody)) {
      logger.error(RAW_BODY_HINT);
      return RAW_BODY_UNAVAILABLE;
    }
    if (rawBodyByteLength(rawBody) > maxBodyBytes) return payloadTooLarge(maxBodyBytes);

    let event: AnyWebhookEvent;
    try {
      event = verify(rawBody, headers);
    } catch (error) {
      if (!isWebhookVerificationError(error)) throw error;
      logger.warn(`sms-webhooks: delivery refused (${error.code}): ${error.message}`);
      return errorResponse(error.status, error.code, error.message);
    }

    const handlers = registry.for(event.type);
    if (handlers.length === 0) return IGNORED;

    let token: string | undefined = ownerToken();
    let claimed: ClaimResult;
    try {
      const answer = claim(event.id, token);
      // A synchronous store (MemoryStore) answers with a string: no await, no microtask hop for it.
      claimed = typeof answer === 'string' ? answer : await answer;
    } catch (error) {
      if (opts.onStoreError === 'reject') {
        logger.error(
          `sms-webhooks: dedupe store unavailable, answering 503 for ${event.id}: ${describe(error)}`,
        );
        return errorResponse(503, 'store_unavailable', 'The dedupe store is unavailable; retry later.', {
          'retry-after': '30',
        });
      }
      logger.warn(
        `sms-webhooks: dedupe store unavailable, processing ${event.id} without dedupe: ${describe(error)}`,
      );
      claimed = 'claimed';
      token = undefined;
    }
    if (claimed === 'completed') return DUPLICATE;
    if (claimed === 'in-flight') {
      return errorResponse(409, 'in_flight', `Event ${event.id} is being processed right now; retry later.`, {
        'retry-after': retryAfter,
      });
    }

    const ctx: HandlerContext = {
      attempt: parseAttempt(readHeader(headers, names.attempt)),
      receivedAt: new Date(),
    };
    if (opts.dispatch) return dispatchEvent(opts.dispatch, event, ctx, token);
    if (afterHandlers) {
      const error = await process(handlers, event, ctx, token);
      return error
        ? errorResponse(500, 'handler_failed', `A handler failed for ${event.id}; the service will retry.`)
        : RECEIVED;
    }
    // Handlers start on the next turn, so even a synchronous one cannot hold up the ack. Arguments
    // rather than a closure: this runs for every accepted event.
    const { waitUntil } = delivery;
    const run = inFlight.start(event.id, waitUntil !== undefined);
    setImmediate(process, handlers, event, ctx, token, run);
    if (waitUntil !== undefined) {
      try {
        waitUntil(run.done!);
      } catch (error) {
        // The event is accepted and its handlers run regardless; only the platform's keep-alive failed.
        logger.error(`sms-webhooks: waitUntil failed for ${event.id}: ${describe(error)}`);
      }
    }
    return RECEIVED;
  }

  async function dispatchEvent(
    dispatch: Dispatch,
    event: AnyWebhookEvent,
    ctx: HandlerContext,
    token: string | undefined,
  ): Promise<ReceiverResponse> {
    try {
      await dispatch({ event, ctx, claim: token === undefined ? undefined : { key: event.id, token } });
      return RECEIVED;
    } catch (error) {
      logger.error(`sms-webhooks: dispatch failed, answering 503 for ${event.id}: ${describe(error)}`);
      if (token !== undefined) {
        // Best effort: if this fails too, the lease runs out and the service's retry claims it again.
        await Promise.resolve()
          .then(() => store.release(event.id, token))
          .catch((e) =>
            logger.error(`sms-webhooks: dedupe store failed to release ${event.id}: ${describe(e)}`),
          );
      }
      return errorResponse(503, 'store_unavailable', 'The event could not be queued; retry later.', {
        'retry-after': '30',
      });
    }
  }

  async function drain(timeoutMs?: number): Promise<DrainResult> {
    const result = await inFlight.drain(timeoutMs);
    if (result.unfinished.length > 0) {
      logger.warn(
        `sms-webhooks: drain timed out with ${result.unfinished.length} handler run(s) unfinished: ${result.unfinished.join(', ')}`,
      );
    }
    return result;
  }

  function types(type: string | readonly string[]): readonly string[] {
    return typeof type === 'string' ? [type] : type;
  }

  const receiver: Receiver = {
    options: {
      maxBodyBytes,
      bodyTimeoutMs,
      bodyBudget,
      respond: opts.respond,
      names,
      logger,
      store,
      retainMs,
      leaseMs,
    },
    on(type, handler) {
      if (typeof handler !== 'function')
        throw new TypeError('sms-webhooks: on(type, handler) needs a function.');
      for (const t of types(type)) registry.add(t, handler as AnyWebhookHandler);
      return receiver;
    },
    onAny(handler) {
      if (typeof handler !== 'function')
        throw new TypeError('sms-webhooks: onAny(handler) needs a function.');
      registry.addAny(handler);
      return receiver;
    },
    off(type, handler) {
      for (const t of types(type)) registry.remove(t, handler as AnyWebhookHandler);
      return receiver;
    },
    onError(handler) {
      if (typeof handler !== 'function')
        throw new TypeError('sms-webhooks: onError(handler) needs a function.');
      errorHandlers.push(handler);
      return receiver;
    },
    reportError,
    handle,
    async runHandlers(event, ctx) {
      const error = await runAll(registry.for(event.type), event, {
        attempt: ctx?.attempt,
        receivedAt: ctx?.receivedAt ?? new Date(),
      });
      if (error) throw error;
    },
    drain,
    async close(timeoutMs) {
      const result = await drain(timeoutMs);
      await store.shutdown?.();
      return result;
    },
  };
  return receiver;
}
