import type { AnyWebhookEvent } from '../verify/event-types.js';
import { isPromiseLike } from './describe-error.js';
import { WebhookHandlerError } from './handler-error.js';
import type { AnyWebhookHandler, HandlerContext } from './handler-registry.js';
import type { HandlerObserver } from './instrumentation.js';

function failed(event: AnyWebhookEvent) {
  return (e: unknown) => new WebhookHandlerError([e], event);
}

/**
 * Every handler runs; their failures come back as one error. One handler that returns no promise is
 * answered at once, without a promise: this runs for every accepted event.
 */
export function runHandlers(
  handlers: readonly AnyWebhookHandler[],
  event: AnyWebhookEvent,
  ctx: HandlerContext,
  obs?: HandlerObserver,
): WebhookHandlerError | undefined | Promise<WebhookHandlerError | undefined> {
  if (handlers.length !== 1) return runAll(handlers, event, ctx, obs);
  let result: unknown;
  try {
    const handler = handlers[0]!;
    result = obs === undefined ? handler(event, ctx) : obs.runHandler(handler, () => handler(event, ctx));
  } catch (e) {
    return new WebhookHandlerError([e], event);
  }
  if (!isPromiseLike(result)) return undefined;
  return Promise.resolve(result).then(succeeded, failed(event));
}

const succeeded = (): undefined => undefined;

async function runAll(
  handlers: readonly AnyWebhookHandler[],
  event: AnyWebhookEvent,
  ctx: HandlerContext,
  obs?: HandlerObserver,
): Promise<WebhookHandlerError | undefined> {
  const results = await Promise.allSettled(
    handlers.map(async (h) => (obs === undefined ? h(event, ctx) : obs.runHandler(h, () => h(event, ctx)))),
  );
  const errors = results
    .filter((r) => r.status === 'rejected')
    .map((r) => (r as PromiseRejectedResult).reason);
  return errors.length === 0 ? undefined : new WebhookHandlerError(errors, event);
}
