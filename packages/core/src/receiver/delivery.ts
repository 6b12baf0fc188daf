import type { AnyWebhookEvent } from '../verify/event-types.js';
import type { HeaderSource } from '../verify/headers.js';
import type { QueuedOrder } from './dispatch.js';
import type { WebhookHandlerError } from './handler-error.js';
import type { AnyWebhookHandler, HandlerContext, OrderClaim } from './handler-registry.js';
import type { DeliveryObserver } from './instrumentation.js';

/** A platform's keep-alive for work after the response (Workers' `ctx.waitUntil`, Vercel's `waitUntil`). */
export type WaitUntil = (promise: Promise<unknown>) => void;

export interface IncomingDelivery {
  /** The body exactly as received. Anything else (a parsed object) is answered 500 raw_body_unavailable. */
  rawBody: unknown;
  headers: HeaderSource;
  /**
   * For platforms that freeze after the response (Vercel, Cloudflare): given the background handler run
   * of an accepted event ('immediately' mode), e.g. `ctx.waitUntil`. The promise never rejects.
   */
  waitUntil?: WaitUntil;
  /** The route's parameters (`/webhooks/sms/:tenant` gives `{ tenant }`), for a `secret` function. */
  params?: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The request target or URL as the framework has it; a `secret` function sees its path. */
  url?: string;
}

/** An event answered `stale`: older than the newest version already completed for its object. */
export type StaleHandler = (event: AnyWebhookEvent, object: { key: string }) => unknown;

/** One verified delivery on its way through the steps: what each step needs travels here. */
export interface Delivery {
  readonly event: AnyWebhookEvent;
  /** The store key of its claim: the event id, or the tenant's and the event's (verify-webhook.ts). */
  readonly key: string;
  /** With a `secret` function: the request's tenant, which keeps `order` keys apart too. */
  readonly tenant?: string;
  readonly handlers: readonly AnyWebhookHandler[];
  readonly obs: DeliveryObserver | undefined;
  /** The dedupe claim's token; undefined when the store was down and `onStoreError: 'process'` let it by. */
  token?: string;
  /** The object slot this run holds (`order`). */
  order?: OrderClaim;
  /** With `dispatch`: the object slot the job carries, for the worker to order it. */
  queuedOrder?: QueuedOrder;
  ctx?: HandlerContext;
  /** Holds a place under `maxConcurrency` (concurrency-limit.ts) until its run ends. */
  admitted?: boolean;
  /** Every handler failure of the last run. */
  error?: WebhookHandlerError;
}
