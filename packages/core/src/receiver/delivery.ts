import type { AnyWebhookEvent } from '../verify/event-types.js';
import type { HeaderSource } from '../verify/headers.js';
import type { WebhookHandlerError } from './handler-error.js';
import type { AnyWebhookHandler, HandlerContext, OrderClaim } from './handler-registry.js';
import type { BackgroundRun } from './in-flight.js';
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
}

/**
 * One verified delivery on its way through the pipeline's steps (route, claim, respond or dispatch,
 * finish or release): everything a step needs travels here, not in parameters. One per delivery.
 */
export class Delivery {
  /** The dedupe claim's token; undefined when the store was down and `onStoreError: 'process'` let it by. */
  token: string | undefined = undefined;
  /** The object slot this run holds (`order`); undefined when not ordered. */
  order: OrderClaim | undefined = undefined;
  /** What the handlers are given; set once the event is claimed. */
  ctx!: HandlerContext;
  /** The background run ('immediately' mode), which drain waits for. */
  run: BackgroundRun | undefined = undefined;
  /** Every handler failure of the last run. */
  error: WebhookHandlerError | undefined = undefined;

  constructor(
    readonly event: AnyWebhookEvent,
    readonly handlers: readonly AnyWebhookHandler[],
    readonly headers: HeaderSource,
    readonly waitUntil: WaitUntil | undefined,
    /** Follows the delivery for the instrumentation; undefined without one. */
    readonly obs: DeliveryObserver | undefined,
  ) {}
}
