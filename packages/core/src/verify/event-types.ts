/** Every event type the service documents (spec section 6). The `EventType` union is derived from it. */
export const EVENT_TYPES = [
  'message.sent',
  'message.delivered',
  'message.failed',
  'message.replied',
  'sms.completed',
  'webhook.test',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

const KNOWN = new Set<string>(EVENT_TYPES);
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
  id: string;
  sms_id: string;
  to: string;
  status: MessageStatus;
  error: MessageError | null;
  kind: MessageKind;
  updated_at: string;
  metadata: Record<string, string>;
}

/** `data` of `sms.completed`: the spec does not show its fields. */
export type SmsSummary = Record<string, unknown>;
/** `data` of `webhook.test`: the spec does not show its fields. */
export type WebhookTestData = Record<string, unknown>;

export interface EventDataMap {
  'message.sent': MessageObject;
  'message.delivered': MessageObject;
  'message.failed': MessageObject;
  'message.replied': MessageObject;
  'sms.completed': SmsSummary;
  'webhook.test': WebhookTestData;
}

interface EventEnvelope<T extends string, D> {
  id: string;
  object: 'event';
  type: T;
  api_version: string;
  created_at: string;
  test: boolean;
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

export type AnyWebhookEvent = WebhookEvent | UnknownWebhookEvent;
