import type { AnyWebhookEvent } from '../verify/event-types.js';
import { isPromiseLike } from './describe-error.js';
import { WebhookHandlerError } from './handler-error.js';
import type { AnyWebhookHandler, HandlerContext } from './handler-registry.js';
import type { HandlerObserver } from './instrumentation.js';

/** Every handler runs; their failures come back as one error. No await on what is not a promise. */
export async function runHandlers(
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
