import {
  EVENT_TYPES,
  type EventType,
  type HandlerContext,
  type StandardSchemaV1,
  type WebhookEvent,
} from '@sms-webhooks/core';
import type { CheckedWebhookEvent } from '@sms-webhooks/core/adapter';
import { optionError } from '@sms-webhooks/internal';

const OWNER = '@sms-webhooks/nestjs';

const HANDLER_TYPES = '@sms-webhooks/nestjs:on-sms-webhook';

/** What a method under `@OnSmsWebhook(type)` must accept: the event of that type, then the context. */
export type SmsWebhookHandlerMethod<T extends EventType> = (
  event: WebhookEvent<T>,
  ctx: HandlerContext,
) => unknown;

/**
 * What a method under `@OnSmsWebhook(type, schema)` must accept: the event whose `data` is the schema's
 * output, then the context.
 */
export type CheckedSmsWebhookHandlerMethod<T extends EventType, S extends StandardSchemaV1> = (
  // The schema's output type, as Standard Schema's own `InferOutput` reads it.
  event: CheckedWebhookEvent<T, NonNullable<S['~standard']['types']>['output']>,
  ctx: HandlerContext,
) => unknown;

/** A method decorator (`experimentalDecorators`, as Nest needs) that only fits a matching handler. */
export type OnSmsWebhookDecorator<T extends EventType> = <M extends SmsWebhookHandlerMethod<T>>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<M>,
) => void;

/** `@OnSmsWebhook(type, schema)`: only fits a method that takes the schema's output as `event.data`. */
export type OnCheckedSmsWebhookDecorator<T extends EventType, S extends StandardSchemaV1> = <
  M extends CheckedSmsWebhookHandlerMethod<T, S>,
>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<M>,
) => void;

/** One `@OnSmsWebhook` on a method: its types, and its schema if it has one. */
export interface HandlerRegistration {
  types: EventType[];
  schema: StandardSchemaV1 | undefined;
}

function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const standard = (value as { '~standard'?: { validate?: unknown } } | null)?.['~standard'];
  return typeof standard?.validate === 'function';
}

/**
 * Runs the decorated provider method for every verified, claimed event of `type` (or of any type in the
 * list), with the provider's injected dependencies: `@OnSmsWebhook('message.delivered') onDelivered(event,
 * ctx)`. Typed from core's event map like `receiver.on`: an unknown type does not compile, and neither
 * does a method whose first parameter cannot take that event.
 */
export function OnSmsWebhook<T extends EventType>(type: T | readonly T[]): OnSmsWebhookDecorator<T>;
/**
 * With a Standard Schema (zod 4, valibot, arktype …), as core's `receiver.on(type, schema, handler)`:
 * `event.data` is checked after verification, before any store write, and the method gets the schema's
 * output (typed: the method's first parameter must take it). A mismatch runs no handler of the event and
 * is answered 422 `payload_schema_mismatch`, so the service retries it.
 */
export function OnSmsWebhook<T extends EventType, S extends StandardSchemaV1>(
  type: T | readonly T[],
  schema: S,
): OnCheckedSmsWebhookDecorator<T, S>;
export function OnSmsWebhook(
  type: EventType | readonly EventType[],
  ...rest: [schema?: StandardSchemaV1]
): (target: object, key: string | symbol, descriptor: PropertyDescriptor) => void {
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
  const schema = rest[0];
  if (rest.length > 0 && !isStandardSchema(schema)) {
    throw optionError(
      OWNER,
      '@OnSmsWebhook(type, schema): `schema` must be a Standard Schema v1 validator (a zod 4, valibot or arktype schema has a `~standard` property).',
    );
  }
  return (_target, key, descriptor) => {
    const method: unknown = descriptor.value;
    if (typeof method !== 'function') {
      throw optionError(OWNER, `@OnSmsWebhook goes on a method; ${String(key)} is not one.`);
    }
    // Stacked decorators add up instead of the last one winning: the types of the ones with the same
    // schema (or none) merge, so a type named twice still registers the method once.
    const previous: readonly HandlerRegistration[] = Reflect.getMetadata(HANDLER_TYPES, method) ?? [];
    const same = previous.find((r) => r.schema === schema);
    const merged: HandlerRegistration = {
      types: [...new Set([...(same?.types ?? []), ...types])] as EventType[],
      schema,
    };
    Reflect.defineMetadata(HANDLER_TYPES, [...previous.filter((r) => r !== same), merged], method);
  };
}

/** The `@OnSmsWebhook` registrations of a method, or undefined when it is no handler. */
export function handlerRegistrations(method: unknown): readonly HandlerRegistration[] | undefined {
  return typeof method === 'function' ? Reflect.getMetadata(HANDLER_TYPES, method) : undefined;
}
