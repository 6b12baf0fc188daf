import { optionError } from '../base/option-checks.js';
import type { AnyWebhookEvent, EventType } from '../verify/event-types.js';
import type { AnyWebhookHandler, HandlerContext, WebhookHandler } from './handler-registry.js';
import { runHandlers } from './handler-run.js';
import type { AdapterReceiver, Receiver } from './receiver.js';

/** Handlers by event type, and `'*'` for every event; each entry one handler or several. */
export type WebhookHandlers = {
  [T in EventType]?: WebhookHandler<T> | readonly WebhookHandler<T>[];
} & { '*'?: AnyWebhookHandler | readonly AnyWebhookHandler[] };

/** What a queue worker calls for each job: runs the event's handlers, rejects with their failures. */
export type RunHandlers = (
  event: AnyWebhookEvent,
  ctx: HandlerContext,
  traceContext?: Readonly<Record<string, string>>,
) => Promise<void>;

function list(entry: unknown): AnyWebhookHandler[] {
  if (entry === undefined) return [];
  return (Array.isArray(entry) ? entry : [entry]) as AnyWebhookHandler[];
}

function isReceiver(value: unknown): value is AdapterReceiver {
  return typeof (value as AdapterReceiver | null)?.runHandlers === 'function';
}

/** Same rules as a receiver: all matching handlers run concurrently, failures gathered in one error. */
function fromMap(handlers: WebhookHandlers, owner: string): RunHandlers {
  for (const [type, entry] of Object.entries(handlers)) {
    if (!list(entry).every((h) => typeof h === 'function')) {
      throw optionError(owner, `the handler for \`${type}\` must be a function or an array of them.`);
    }
  }
  const map = handlers as Record<string, unknown>;
  return async (event, ctx) => {
    const error = await runHandlers([...list(map[event.type]), ...list(map['*'])], event, ctx);
    if (error) throw error;
  };
}

/**
 * A queue worker's handlers, from a receiver (its `runHandlers`, with the instrumentation) or a map of
 * handlers by event type. `owner` (the package name) starts the start-up errors.
 */
export function toRunHandlers(source: Receiver | WebhookHandlers, owner: string): RunHandlers {
  if (isReceiver(source)) {
    return (event, ctx, traceContext) => source.runHandlers(event, ctx, { traceContext });
  }
  if (typeof source !== 'object' || source === null) {
    throw optionError(
      owner,
      `createWorker needs a receiver (createReceiver) or a map of handlers by event type.`,
    );
  }
  return fromMap(source as WebhookHandlers, owner);
}
