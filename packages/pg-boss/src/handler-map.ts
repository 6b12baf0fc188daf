import {
  type AnyWebhookEvent,
  type AnyWebhookHandler,
  type EventType,
  type HandlerContext,
  type Receiver,
  type WebhookHandler,
  WebhookHandlerError,
} from '@sms-webhooks/core';

/** Handlers by event type, and `'*'` for every event; each entry one handler or several. */
export type WebhookHandlers = {
  [T in EventType]?: WebhookHandler<T> | readonly WebhookHandler<T>[];
} & { '*'?: AnyWebhookHandler | readonly AnyWebhookHandler[] };

export type RunHandlers = (
  event: AnyWebhookEvent,
  ctx: HandlerContext,
  traceContext?: Readonly<Record<string, string>>,
) => Promise<void>;

function list(entry: unknown): AnyWebhookHandler[] {
  if (entry === undefined) return [];
  return (Array.isArray(entry) ? entry : [entry]) as AnyWebhookHandler[];
}

function isReceiver(value: unknown): value is Receiver {
  return typeof (value as Receiver | null)?.runHandlers === 'function';
}

/** Same rules as a receiver: all matching handlers run concurrently, failures gathered in one error. */
function fromMap(handlers: WebhookHandlers): RunHandlers {
  for (const [type, entry] of Object.entries(handlers)) {
    if (!list(entry).every((h) => typeof h === 'function')) {
      throw new TypeError(
        `@sms-webhooks/pg-boss: the handler for \`${type}\` must be a function or an array of them.`,
      );
    }
  }
  const map = handlers as Record<string, unknown>;
  return async (event, ctx) => {
    const matching = [...list(map[event.type]), ...list(map['*'])];
    const results = await Promise.allSettled(matching.map(async (h) => h(event, ctx)));
    const errors = results
      .filter((r) => r.status === 'rejected')
      .map((r) => (r as PromiseRejectedResult).reason);
    if (errors.length > 0) throw new WebhookHandlerError(errors, event);
  };
}

export function toRunHandlers(source: Receiver | WebhookHandlers): RunHandlers {
  if (isReceiver(source)) {
    return (event, ctx, traceContext) => source.runHandlers(event, ctx, { traceContext });
  }
  if (typeof source !== 'object' || source === null) {
    throw new TypeError(
      '@sms-webhooks/pg-boss: createWorker needs a receiver (createReceiver) or a map of handlers by event type.',
    );
  }
  return fromMap(source);
}
