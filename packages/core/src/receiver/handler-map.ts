import { optionError, positiveOption } from '@sms-webhooks/internal';
import { type Clock, systemClock } from '../base/clock.js';
import type { AnyWebhookEvent, EventType } from '../verify/event-types.js';
import type { AnyWebhookHandler, HandlerContext, WebhookHandler } from './handler-registry.js';
import { runHandlersWithin } from './handler-run.js';
import type { AdapterReceiver, Receiver } from './receiver.js';
import { DEFAULT_HANDLER_TIMEOUT_MS, RunTimeouts } from './run-timeouts.js';

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
function fromMap(handlers: WebhookHandlers, owner: string, timeouts: RunTimeouts | undefined): RunHandlers {
  for (const [type, entry] of Object.entries(handlers)) {
    if (!list(entry).every((h) => typeof h === 'function')) {
      throw optionError(owner, `the handler for \`${type}\` must be a function or an array of them.`);
    }
  }
  const map = handlers as Record<string, unknown>;
  return async (event, ctx) => {
    const all = [...list(map[event.type]), ...list(map['*'])];
    const error = await runHandlersWithin(timeouts, all, event, ctx);
    if (error) throw error;
  };
}

/** How {@link toRunHandlers} runs a handler map's handlers. */
export interface RunHandlersOptions {
  /**
   * With a handler map: how long one run may take before it counts as failed (`ctx.signal` aborts then).
   * Default 2 min; false: none. With a receiver its own `handlerTimeoutMs` applies instead.
   */
  handlerTimeoutMs?: number | false;
  /** Where the time-out's time comes from (a test's VirtualClock). Default the system clock. */
  clock?: Clock;
}

/**
 * A queue worker's handlers, from a receiver (its `runHandlers`, with the instrumentation and its
 * `handlerTimeoutMs`) or a map of handlers by event type. `owner` (the package name) starts the start-up
 * errors.
 */
export function toRunHandlers(
  source: Receiver | WebhookHandlers,
  owner: string,
  options: RunHandlersOptions = {},
): RunHandlers {
  const { handlerTimeoutMs, clock = systemClock } = options;
  if (isReceiver(source)) {
    if (handlerTimeoutMs !== undefined) {
      throw optionError(
        owner,
        "`handlerTimeoutMs` is for a worker given a map of handlers; a worker given a receiver runs under the receiver's own: createReceiver({ handlerTimeoutMs }).",
      );
    }
    return (event, ctx, traceContext) => source.runHandlers(event, ctx, { traceContext });
  }
  if (typeof source !== 'object' || source === null) {
    throw optionError(
      owner,
      `createWorker needs a receiver (createReceiver) or a map of handlers by event type.`,
    );
  }
  const ms =
    handlerTimeoutMs === false
      ? undefined
      : positiveOption('handlerTimeoutMs', handlerTimeoutMs, DEFAULT_HANDLER_TIMEOUT_MS, {
          owner,
          integer: true,
          unit: 'milliseconds (or false for no time-out)',
        });
  return fromMap(source as WebhookHandlers, owner, ms === undefined ? undefined : new RunTimeouts(ms, clock));
}
