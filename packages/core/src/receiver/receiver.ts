import { optionError } from '@sms-webhooks/internal';
import type { Clock } from '../base/clock.js';
import type { Logger } from '../base/logger.js';
import type { AnyWebhookEvent, CheckedWebhookEvent, EventType } from '../verify/event-types.js';
import type { StandardSchemaV1 } from '../verify/standard-schema.js';
import type { DedupeStore } from './dedupe-store.js';
import type { IncomingDelivery, StaleHandler } from './delivery.js';
import { type ErrorHandler, ErrorHooks } from './error-hooks.js';
import type { WebhookHandlerError } from './handler-error.js';
import {
  type AnyWebhookHandler,
  type CheckedWebhookHandler,
  type HandlerContext,
  HandlerRegistry,
  typesOf,
  unknownTypeWarning,
  type WebhookHandler,
} from './handler-registry.js';
import { runQueuedHandlers } from './handler-run.js';
import type { HandlerObserver, TraceContext } from './instrumentation.js';
import type { RespondMode } from './modes.js';
import { DeliveryPipeline, type DrainResult } from './pipeline.js';
import { type ReceiverOptions, type ResolvedOptions, resolveOptions } from './receiver-options.js';
import { type RefusalHandler, Refusals } from './refusals.js';
import type { ReceiverResponse } from './responses.js';
import { handlerArguments, type InvalidEventHandler, queuedHandlers, SchemaCheck } from './schema-check.js';

export type { IncomingDelivery, StaleHandler, WaitUntil } from './delivery.js';
export type { ErrorHandler } from './error-hooks.js';
export type { Refusal, RefusalHandler } from './refusals.js';
export type { InvalidEvent, InvalidEventHandler } from './schema-check.js';

/** A receiver's resolved settings, defaults filled in, as `receiver.options` shows them. */
export interface ReceiverSettings {
  /** The largest body read, in bytes; a larger one is answered 413. */
  readonly maxBodyBytes: number;
  /** How long reading the body may take, in ms; a slower one is answered 408. */
  readonly bodyTimeoutMs: number;
  /** When the receiver answers: before or after the handlers run. */
  readonly respond: RespondMode;
  /** Where the receiver logs. */
  readonly logger: Logger;
  /** The dedupe store. */
  readonly store: DedupeStore;
  /** How long a completed event id is remembered, in ms. */
  readonly retainMs: number;
  /** How long a claim holds an event while its handlers run, in ms (renewed while they do). */
  readonly leaseMs: number;
  /** Where the receiver reads the time and sets its timers. */
  readonly clock: Clock;
}

/**
 * The webhook receiver, from {@link createReceiver}: register handlers with `on`, then give it to an adapter
 * (`webhookMiddleware`, `webhookPlugin`, `webhookHandler` …) or call `handle` yourself.
 */
export interface Receiver {
  /** Resolved settings tools may show and adapters read. */
  readonly options: ReceiverSettings;
  /**
   * Runs `handler` for each verified event of `type` (or of any of the types given). Several handlers of a
   * type all run; a failure of any makes the delivery fail (500, or a retry) once every one has run.
   */
  on<T extends EventType>(type: T | readonly T[], handler: WebhookHandler<T>): Receiver;
  /**
   * With a Standard Schema (zod 4, valibot, arktype …): `event.data` is checked after verification, before
   * any store write, and the handler gets the schema's output. A failure runs no handler of the event and
   * is answered 422 `payload_schema_mismatch`, so the service retries it; see `onInvalid`.
   */
  on<T extends EventType, S extends StandardSchemaV1>(
    type: T | readonly T[],
    schema: S,
    handler: CheckedWebhookHandler<T, S>,
  ): Receiver;
  /** Runs for every verified event, including types this version does not know yet. */
  onAny(handler: AnyWebhookHandler): Receiver;
  /** Removes a handler (with or without its schema); `'*'` for `onAny` ones. */
  off<T extends EventType>(
    type: T | readonly T[] | '*',
    handler:
      | WebhookHandler<T>
      | AnyWebhookHandler
      | ((event: CheckedWebhookEvent<T, never>, ctx: HandlerContext) => unknown),
  ): Receiver;
  /** Called with every handler failure; a hook that throws is logged, never rethrown. */
  onError(handler: ErrorHandler): Receiver;
  /**
   * Called for every refused request (4xx and 5xx answers before any handler ran), for metrics: the
   * log only gets the first of each code and then one summary line per code every 10 s.
   */
  onRefused(handler: RefusalHandler): Receiver;
  /**
   * With `order`: called for each event answered `stale` (older than the newest one completed for its
   * object), with the object's key. No handler runs for it. Throws at once when `order` is off.
   */
  onStale(handler: StaleHandler): Receiver;
  /**
   * Called for each verified event whose `data` failed a handler's schema, with its id, type and attempt
   * and the schema's issues (paths and messages, never the data). It was answered 422 and runs no handler.
   */
  onInvalid(handler: InvalidEventHandler): Receiver;
  /** The whole flow for one delivery: verify, route, claim, respond, finish. Never rejects for bad input. */
  handle(delivery: IncomingDelivery): Promise<ReceiverResponse>;
  /** Waits for background handlers; with a time-out, reports the event ids still running. */
  drain(timeoutMs?: number): Promise<DrainResult>;
  /** The types with a handler of their own, and whether an `onAny` handler runs for every type. */
  handledTypes(): { types: string[]; any: boolean };
  /** `drain`, then the store's `shutdown`. */
  close(timeoutMs?: number): Promise<DrainResult>;
}

/**
 * The receiver as adapters and queue workers see it (`@sms-webhooks/core/adapter` and `/queue`): what an
 * application calls, and the entries' refusals, a worker's handler runs and its failures.
 */
export interface AdapterReceiver extends Receiver {
  /**
   * For the Node and Web entries (`@sms-webhooks/core/adapter`): counts and logs, as `handle` does its
   * own, a refusal answered before `handle` was reached (405, 408, 413 while reading), and returns it.
   */
  refuse(response: ReceiverResponse): ReceiverResponse;
  /** For the entries, before a body: past `maxConcurrency` + `maxQueue`, 503 `overloaded` (counted). */
  overloaded(): ReceiverResponse | undefined;
  /**
   * Runs this receiver's handlers for an event verified elsewhere (a queue worker after `dispatch`):
   * no verification, no dedupe, no onError. Rejects with a WebhookHandlerError when any handler fails,
   * or when the run passes `handlerTimeoutMs` (`ctx.signal` aborts then). `queued.traceContext` is the one `dispatch` was given, for the instrumentation to link the run to.
   */
  runHandlers(
    event: AnyWebhookEvent,
    ctx?: Partial<HandlerContext>,
    queued?: { traceContext?: TraceContext },
  ): Promise<void>;
  /**
   * Hands a failure that happened outside `handle` (a queue worker's exhausted job) to the `onError`
   * hooks, through the same path as the receiver's own: hooks are contained, and with none it is logged.
   */
  reportError(error: WebhookHandlerError): void;
  /** With `order` only (absent without): a queue worker's stale job (`JobOrder`) to the `onStale` hooks. */
  readonly reportStale?: (event: AnyWebhookEvent, object: { key: string }) => void;
}

const BOUND_METHODS = [
  'refuse',
  'on',
  'onAny',
  'off',
  'onError',
  'onRefused',
  'onStale',
  'onInvalid',
  'reportError',
  'runHandlers',
  'drain',
  'close',
] as const;

/**
 * The receiver an application holds: handler registration, hooks, drain and close. Each delivery is
 * walked by the `DeliveryPipeline`; this class only wires the parts together.
 */
export class WebhookReceiver implements AdapterReceiver {
  readonly options: Receiver['options'];
  readonly reportStale: AdapterReceiver['reportStale'];
  readonly #opts: ResolvedOptions;
  readonly #registry = new HandlerRegistry();
  readonly #errors: ErrorHooks;
  readonly #refusals: Refusals;
  readonly #pipeline: DeliveryPipeline;
  /** The pipeline's own, so a delivery goes from the adapter straight to its walk. */
  readonly handle: (delivery: IncomingDelivery) => Promise<ReceiverResponse>;
  readonly overloaded: () => ReceiverResponse | undefined;

  constructor(options: ReceiverOptions) {
    const opts = resolveOptions(options);
    this.#opts = opts;
    this.#errors = new ErrorHooks(opts.logger);
    this.#refusals = new Refusals(this.#errors, opts.instrumentation, opts.clock);
    const schemas = new SchemaCheck(this.#refusals, this.#errors);
    this.#pipeline = new DeliveryPipeline(opts, this.#registry, this.#refusals, this.#errors, schemas);
    this.handle = this.#pipeline.handle.bind(this.#pipeline);
    this.overloaded = this.#pipeline.overloaded;
    const { maxBodyBytes, bodyTimeoutMs, respond, logger, store, retainMs, leaseMs, clock } = opts;
    this.options = { maxBodyBytes, bodyTimeoutMs, respond, logger, store, retainMs, leaseMs, clock };
    const stale = this.#pipeline.staleHooks;
    if (opts.order)
      this.reportStale = (event, object) => this.#errors.callEach('onStale', stale, event, object);
    // The receiver's methods work detached (`app.post(path, receiver.handle)`, `const { on } = receiver`),
    // as they did when the receiver was a plain object of closures.
    for (const name of BOUND_METHODS) (this as Record<string, unknown>)[name] = this[name].bind(this);
  }

  handledTypes(): { types: string[]; any: boolean } {
    return { types: this.#registry.types(), any: this.#registry.hasAny() };
  }

  refuse(response: ReceiverResponse): ReceiverResponse {
    return this.#refusals.refuseUnread(response);
  }

  on<T extends EventType>(type: T | readonly T[], handler: WebhookHandler<T>): Receiver;
  on<T extends EventType, S extends StandardSchemaV1>(
    type: T | readonly T[],
    schema: S,
    handler: CheckedWebhookHandler<T, S>,
  ): Receiver;
  on(type: string | readonly string[], ...args: unknown[]): Receiver {
    const { schema, handler } = handlerArguments(args);
    for (const t of typesOf(type)) {
      const unknown = unknownTypeWarning(t);
      if (unknown !== undefined) this.#opts.logger.warn(unknown);
      this.#registry.add(t, handler, schema);
    }
    return this;
  }

  onAny(handler: AnyWebhookHandler): Receiver {
    if (typeof handler !== 'function') throw optionError('sms-webhooks', 'onAny(handler) needs a function.');
    this.#registry.addAny(handler);
    return this;
  }

  off<T extends EventType>(
    type: T | readonly T[] | '*',
    handler:
      | WebhookHandler<T>
      | AnyWebhookHandler
      | ((event: CheckedWebhookEvent<T, never>, ctx: HandlerContext) => unknown),
  ): Receiver {
    for (const t of typesOf(type)) this.#registry.remove(t, handler as AnyWebhookHandler);
    return this;
  }

  onError(handler: ErrorHandler): Receiver {
    this.#errors.add(handler);
    return this;
  }

  onRefused(handler: RefusalHandler): Receiver {
    this.#refusals.add(handler);
    return this;
  }

  onStale(handler: StaleHandler): Receiver {
    if (this.#opts.order === undefined) {
      throw optionError(
        'sms-webhooks',
        'onStale() needs ordering: createReceiver({ order: true }) (no event is ever stale without it).',
      );
    }
    if (typeof handler !== 'function')
      throw optionError('sms-webhooks', 'onStale(handler) needs a function.');
    this.#pipeline.staleHooks.push(handler);
    return this;
  }

  onInvalid(handler: InvalidEventHandler): Receiver {
    if (typeof handler !== 'function')
      throw optionError('sms-webhooks', 'onInvalid(handler) needs a function.');
    this.#pipeline.schemas.hooks.push(handler);
    return this;
  }

  reportError(error: WebhookHandlerError): void {
    this.#errors.report(error);
  }

  runHandlers(
    event: AnyWebhookEvent,
    ctx?: Partial<HandlerContext>,
    queued?: { traceContext?: TraceContext },
  ): Promise<void> {
    const instrumentation = this.#opts.instrumentation;
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
    const handlers = await queuedHandlers(this.#registry.for(event.type), event);
    return runQueuedHandlers(this.#pipeline.run.timeouts, handlers, event, ctx, this.#opts.clock, obs);
  }

  /** Retries still waiting run at once: whoever drains is about to stop the process. */
  async drain(timeoutMs?: number): Promise<DrainResult> {
    const { run, inFlight } = this.#pipeline;
    run.skipWaits(true);
    let result: DrainResult;
    try {
      result = await inFlight.drain(timeoutMs);
    } finally {
      run.skipWaits(false);
    }
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
}
