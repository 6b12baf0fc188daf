import { EVENT_TYPES, type EventType, type HandlerContext, type WebhookEvent } from '@sms-webhooks/core';
import { optionError } from '@sms-webhooks/core/store';

const OWNER = '@sms-webhooks/nestjs';

const HANDLER_TYPES = '@sms-webhooks/nestjs:on-sms-webhook';

/** What a method under `@OnSmsWebhook(type)` must accept: the event of that type, then the context. */
export type SmsWebhookHandlerMethod<T extends EventType> = (
  event: WebhookEvent<T>,
  ctx: HandlerContext,
) => unknown;

/** A method decorator (`experimentalDecorators`, as Nest needs) that only fits a matching handler. */
export type OnSmsWebhookDecorator<T extends EventType> = <M extends SmsWebhookHandlerMethod<T>>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<M>,
) => void;

/**
 * Runs the decorated provider method for every verified, claimed event of `type` (or of any type in the
 * list), with the provider's injected dependencies: `@OnSmsWebhook('message.delivered') onDelivered(event,
 * ctx)`. Typed from core's event map like `receiver.on`: an unknown type does not compile, and neither
 * does a method whose first parameter cannot take that event.
 */
export function OnSmsWebhook<T extends EventType>(type: T | readonly T[]): OnSmsWebhookDecorator<T> {
  const types: readonly string[] = typeof type === 'string' ? [type] : type;
  if (!Array.isArray(types) || types.length === 0) {
    throw optionError(OWNER, '@OnSmsWebhook(type) needs an event type or a non-empty list.');
  }
  for (const t of types) {
    // Caught by the compiler in TypeScript; this is for JavaScript, and for casts.
    if (!(EVENT_TYPES as readonly string[]).includes(t)) {
      throw optionError(
        OWNER,
        `@OnSmsWebhook(${JSON.stringify(t)}): not an event type. Known: ${EVENT_TYPES.join(', ')}.`,
      );
    }
  }
  return (_target, key, descriptor) => {
    const method = descriptor.value;
    if (typeof method !== 'function') {
      throw optionError(OWNER, `@OnSmsWebhook goes on a method; ${String(key)} is not one.`);
    }
    // Stacked decorators add up instead of the last one winning.
    const previous: readonly string[] = Reflect.getMetadata(HANDLER_TYPES, method) ?? [];
    Reflect.defineMetadata(HANDLER_TYPES, [...new Set([...previous, ...types])], method);
  };
}

/** The event types a method was decorated with, or undefined when it is no handler. */
export function handlerTypes(method: unknown): EventType[] | undefined {
  return typeof method === 'function' ? Reflect.getMetadata(HANDLER_TYPES, method) : undefined;
}
