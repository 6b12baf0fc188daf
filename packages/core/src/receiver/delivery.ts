import type { AnyWebhookEvent } from '../verify/event-types.js';
import type { HeaderSource } from '../verify/headers.js';
import type { QueuedOrder } from './dispatch.js';
import type { AnyWebhookHandler, HandlerContext, OrderClaim } from './handler-registry.js';
import type { DeliveryObserver } from './instrumentation.js';

/** A platform's keep-alive for work after the response (Workers' `ctx.waitUntil`, Vercel's `waitUntil`). */
export type WaitUntil = (promise: Promise<unknown>) => void;

/** What `receiver.handle` takes: one request's raw body and headers, and what the platform adds. */
export interface IncomingDelivery {
  /** The body exactly as received. Anything else (a parsed object) is answered 500 raw_body_unavailable. */
  rawBody: unknown;
  /** The request's headers: Node's, a plain record, or a Fetch `Headers`. */
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

/**
 * A delivery's stages, each complete for the steps that take it: `Routed` (verified, with its handlers:
 * keeping, admission, the claim), `Claimed` (what the store holds for it: the dispatch, the run's end) and
 * `Running` (with the context its handlers get). Each step gets the stage it needs and none is filled in
 * later, so nothing is read back as "set by now".
 */
export interface Routed {
  readonly event: AnyWebhookEvent;
  /** The store key of its claim: the event id, or the tenant's and the event's (verify-webhook.ts). */
  readonly key: string;
  /** With a `secret` function: the request's tenant, which keeps `order` keys apart too. */
  readonly tenant: string | undefined;
  readonly handlers: readonly AnyWebhookHandler[];
  readonly obs: DeliveryObserver | undefined;
}

/** What the store holds for a claimed delivery: its dedupe claim and, with `order`, its object's slot. */
export interface Held {
  readonly token: string;
  readonly order: OrderClaim | undefined;
}

/** Past the claim step: run it (or hand it to `dispatch`). */
export interface Claimed extends Routed {
  /** Undefined when the store was down and `onStoreError: 'process'` let the event by without a claim. */
  readonly held: Held | undefined;
  /** With `dispatch` and `order`: the object slot the job carries, for the worker to order it. */
  readonly queuedOrder: QueuedOrder | undefined;
}

/** Claimed, with its handlers' context and its place under `maxConcurrency`: what a run takes. */
export interface Running extends Claimed {
  readonly ctx: HandlerContext;
  /** Undefined without `maxConcurrency`. */
  readonly place: Place | undefined;
}

/** A place under `maxConcurrency` (concurrency-limit.ts), given back once, by whichever end comes first. */
export interface Place {
  leave(): void;
}
