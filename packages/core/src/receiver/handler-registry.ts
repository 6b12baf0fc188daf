import { closestName } from '@sms-webhooks/internal';
import {
  type AnyWebhookEvent,
  type CheckedWebhookEvent,
  EVENT_TYPES,
  type EventType,
  isKnownEventType,
  type WebhookEvent,
} from '../verify/event-types.js';
import type { StandardSchemaV1 } from '../verify/standard-schema.js';

/** What a handler gets besides the event: the delivery's attempt, tenant, claim, and its time-out signal. */
export interface HandlerContext {
  /** From the delivery-attempt header: 1 for the first delivery, up to 6. */
  attempt?: number;
  /** When the receiver accepted the delivery (in a queue worker: when it was queued). */
  receivedAt: Date;
  /** With `secret` as a function of the request: the tenant the request named. */
  tenant?: string;
  /**
   * Which secret signed the delivery: its index in `secret` (a list while rotating), or in what the
   * `secret` function returned for the tenant. Never the secret itself. Absent in a queue worker.
   */
  secretIndex?: number;
  /**
   * The dedupe claim this run holds (absent when the store was down and `onStoreError: 'process'` let
   * the event through). A transactional store completes it inside the handler's own transaction.
   */
  claim?: { key: string; token: string };
  /**
   * With the receiver's `order` option: the object this event updates and its version, held for this run.
   * A transactional store (`PostgresStore.transaction`, `completeIn`) advances it inside the handler's own
   * transaction, so the version moves only together with the handler's writes.
   */
  order?: OrderClaim;
  /**
   * Aborted when this run passes the receiver's `handlerTimeoutMs` (its reason a `TimeoutError`): the run
   * has then counted as failed, so stop, and pass it on to what takes long (`fetch(url, { signal })`,
   * `pool.query` with a time-out), rather than write after the event was given back. Absent when the
   * handlers run without a time-out (`handlerTimeoutMs: false`, a queue worker).
   */
  signal?: AbortSignal;
}

/** An object's slot in `order`, held by one run: see `ReceiverOptions.order`. */
export interface OrderClaim {
  /** The object's key (a message id by default). */
  key: string;
  /** This event's version, encoded so that versions compare as strings (bytewise). */
  version: string;
  /** The slot's token: only this run can advance or release it. */
  token: string;
}

/** A handler for events of type `T`, as `receiver.on(type, handler)` takes it; what it returns is awaited. */
export type WebhookHandler<T extends EventType = EventType> = (
  event: WebhookEvent<T>,
  ctx: HandlerContext,
) => unknown;

/** A handler registered with a schema (`on(type, schema, handler)`): `event.data` is the schema's output. */
export type CheckedWebhookHandler<T extends EventType, S extends StandardSchemaV1> = (
  // The schema's output type, as Standard Schema's own `InferOutput` reads it.
  event: CheckedWebhookEvent<T, NonNullable<S['~standard']['types']>['output']>,
  ctx: HandlerContext,
) => unknown;

/** A handler for every event, unknown types included, as `receiver.onAny(handler)` takes it. */
export type AnyWebhookHandler = (event: AnyWebhookEvent, ctx: HandlerContext) => unknown;

/** A handler and the schema its event's `data` must pass before any handler of the event runs. */
export interface CheckedEntry {
  readonly handler: AnyWebhookHandler;
  readonly schema: StandardSchemaV1;
}

/** What the registry holds per type: a plain handler, or one with its schema. */
export type Registered = AnyWebhookHandler | CheckedEntry;

/** Whether any of an event's handlers was registered with a schema (checked in schema-check.ts). */
export function hasSchemas(registered: readonly Registered[]): boolean {
  // A loop, not `some`: this runs on every delivery, and most register no schema at all.
  for (const r of registered) if (typeof r !== 'function') return true;
  return false;
}

/** `on`'s and `off`'s type argument as a list. */
export function typesOf(type: string | readonly string[]): readonly string[] {
  return typeof type === 'string' ? [type] : type;
}

/** Handlers by event type, plus those for every event. */
export class HandlerRegistry {
  readonly #byType = new Map<string, Registered[]>();
  readonly #any: AnyWebhookHandler[] = [];

  add(type: string, handler: AnyWebhookHandler, schema?: StandardSchemaV1): void {
    const entry: Registered = schema === undefined ? handler : { handler, schema };
    const list = this.#byType.get(type);
    if (list) list.push(entry);
    else this.#byType.set(type, [entry]);
  }

  addAny(handler: AnyWebhookHandler): void {
    this.#any.push(handler);
  }

  remove(type: string, handler: AnyWebhookHandler): void {
    const list = this.#byType.get(type) ?? [];
    const i = list.findIndex((r) => (typeof r === 'function' ? r : r.handler) === handler);
    if (i >= 0) list.splice(i, 1);
    const j = this.#any.indexOf(handler);
    if (type === '*' && j >= 0) this.#any.splice(j, 1);
  }

  /** The types with a handler of their own, for the log line of an ignored event. */
  types(): string[] {
    return [...this.#byType].filter(([, list]) => list.length > 0).map(([type]) => type);
  }

  /** Whether an `onAny` handler is registered. */
  hasAny(): boolean {
    return this.#any.length > 0;
  }

  for(type: string): readonly Registered[] {
    return [...(this.#byType.get(type) ?? []), ...this.#any];
  }
}

/** What `on(type)` logs for a type this version does not know (a newer one still works), or undefined. */
export function unknownTypeWarning(type: string): string | undefined {
  if (isKnownEventType(type)) return undefined;
  const near = closestName(type, EVENT_TYPES);
  return `sms-webhooks: on(${JSON.stringify(type)}) is not a known event type${
    near ? `; did you mean '${near}'?` : '.'
  } Known types: ${EVENT_TYPES.join(', ')}. (A type newer than this version works; use onAny to see every event.)`;
}
