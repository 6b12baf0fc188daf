/** Every event type the service documents (spec section 6). The `EventType` union is derived from it. */
export const EVENT_TYPES = [
  'message.sent',
  'message.delivered',
  'message.failed',
  'message.replied',
  'sms.completed',
  'webhook.test',
] as const;

/** A known event type: one of {@link EVENT_TYPES}. */
export type EventType = (typeof EVENT_TYPES)[number];

const KNOWN = new Set<string>(EVENT_TYPES);
/** True when this version of the library knows the type (has its payload type and sample data). */
export function isKnownEventType(type: string): type is EventType {
  return KNOWN.has(type);
}

/** Keeps editor completion for the known values while accepting values the spec leaves open. */
export type OpenString<Known extends string> = Known | (string & {});

/** The spec only shows `delivered`; the others follow from the event types and stay open-ended. */
export type MessageStatus = OpenString<'sent' | 'delivered' | 'failed' | 'replied'>;
/** The spec only shows `utility`. */
export type MessageKind = OpenString<'utility'>;

/** The spec does not show the shape of a non-null `error`, so it stays an open record. */
export type MessageError = Record<string, unknown>;

/** `data` of every `message.*` event (spec section 2, "Message object"). */
export interface MessageObject {
  /** The message's id (`msg_…`), one per recipient. */
  id: string;
  /** The send it belongs to (`sms_…`). */
  sms_id: string;
  /** The recipient's number, in international format. */
  to: string;
  /** Where the message stands. */
  status: MessageStatus;
  /** Why it failed, on `message.failed`; else null. */
  error: MessageError | null;
  /** The message's kind. */
  kind: MessageKind;
  /** ISO 8601 time of the message's last change: the event's order within a message. */
  updated_at: string;
  /** The metadata given with the send, copied onto each message. */
  metadata: Record<string, string>;
}

/** `data` of `sms.completed`: the spec does not show its fields. */
export type SmsSummary = Record<string, unknown>;
/** `data` of `webhook.test`: the spec does not show its fields. */
export type WebhookTestData = Record<string, unknown>;

/** Each known event type's `data`: what `event.data` is once `event.type` is narrowed. */
export interface EventDataMap {
  /** The message left for the recipient's network. */
  'message.sent': MessageObject;
  /** The recipient's network confirmed delivery. */
  'message.delivered': MessageObject;
  /** The message could not be delivered; see `error`. */
  'message.failed': MessageObject;
  /** The recipient replied. */
  'message.replied': MessageObject;
  /** Every message of the send has its final result. */
  'sms.completed': SmsSummary;
  /** A test delivery, from the service's test operation. */
  'webhook.test': WebhookTestData;
}

/** The fields every event has, with its type `T` and its `data` `D` (spec section 2, "Event"). */
export interface EventEnvelope<T extends string, D> {
  /** The event's id (`evt_…`): the same on every delivery attempt, so the dedupe key. */
  id: string;
  /** Always `event`. */
  object: 'event';
  /** The event's type, e.g. `message.delivered`. */
  type: T;
  /** The API version the payload follows. */
  api_version: string;
  /** ISO 8601 time the event happened. */
  created_at: string;
  /** True for an event from a test-mode key (`sk_test_…`). */
  test: boolean;
  /** The event's payload; see {@link EventDataMap}. */
  data: D;
}

/** An event of type `T`; distributes over unions so `switch (event.type)` narrows `data`. */
export type WebhookEvent<T extends EventType = EventType> = T extends EventType
  ? EventEnvelope<T, EventDataMap[T]>
  : never;

/**
 * An event of type `T` whose `data` passed a handler's schema: `data` is the schema's output `D`
 * (`receiver.on(type, schema, handler)`).
 */
export type CheckedWebhookEvent<T extends EventType, D> = T extends EventType ? EventEnvelope<T, D> : never;

/** An event whose type this version of the library does not know yet (seen only by `onAny`). */
export type UnknownWebhookEvent = EventEnvelope<string, Record<string, unknown>>;

/** Any event a receiver may get: a known one (narrow on `type`) or one this version does not know. */
export type AnyWebhookEvent = WebhookEvent | UnknownWebhookEvent;
