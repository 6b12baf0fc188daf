import { sampleData as sampleFields } from '@sms-webhooks/internal';
import { platform } from '../base/platform/index.js';
import type { EventDataMap, EventType, WebhookEvent } from './event-types.js';
import { DEFAULT_HEADER_PREFIX, headerNames } from './headers.js';
import { signPayload, signPayloadAsync } from './sign-payload.js';

/** What {@link createTestDelivery} signs: the secret, and the event's data, id and time when given. */
export interface TestDeliveryOptions<T extends EventType> {
  /** Checked as `createReceiver` checks it: empty or whitespace-padded throws a TypeError. */
  secret: string;
  /** Merged over a realistic sample for the type. */
  data?: Partial<EventDataMap[T]>;
  /** Default a fresh `evt_…` id. */
  id?: string;
  /** Unix seconds for the signature; default now. */
  timestamp?: number;
  /** The delivery-attempt header; default 1. */
  attempt?: number;
  /** Default true, as deliveries from a `sk_test_` workspace. */
  test?: boolean;
  headerPrefix?: string;
}

/** A signed delivery from {@link createTestDelivery}: POST `body` with `headers` to the receiver. */
export interface TestDelivery<T extends EventType> {
  /** The JSON body exactly as signed: send these bytes unchanged. */
  body: string;
  /** The signature, timestamp and delivery headers, and the JSON content type. */
  headers: Record<string, string>;
  /** The event the body holds. */
  event: WebhookEvent<T>;
}

/** A fresh id like the service's: `prefix`, an underscore and 24 random hex digits (`randomId('evt')`). */
export function randomId(prefix: string): string {
  return `${prefix}_${platform.randomHex(12)}`;
}

/** A sample `data` object for each type, shaped as spec section 2 describes. */
export function sampleData<T extends EventType>(type: T, now = new Date()): EventDataMap[T] {
  return sampleFields(type, now, randomId) as EventDataMap[T];
}

/** The event, its body and its headers but the signature: the part both test-delivery helpers share. */
export function unsignedTestDelivery<T extends EventType>(
  type: T,
  options: TestDeliveryOptions<T>,
): { body: string; event: WebhookEvent<T>; headers: Record<string, string>; signatureHeader: string } {
  const now = new Date();
  const event = {
    id: options.id ?? randomId('evt'),
    object: 'event',
    type,
    api_version: 'v1',
    created_at: now.toISOString(),
    test: options.test ?? true,
    data: { ...sampleData(type, now), ...options.data },
  } as WebhookEvent<T>;
  const names = headerNames(options.headerPrefix ?? DEFAULT_HEADER_PREFIX);
  return {
    body: JSON.stringify(event),
    event,
    signatureHeader: names.signature,
    headers: {
      'content-type': 'application/json',
      // Filled in by the caller, in this place so the headers keep the service's order.
      [names.signature]: '',
      [names.eventId]: event.id,
      [names.eventType]: type,
      [names.attempt]: String(options.attempt ?? 1),
    },
  };
}

/**
 * A correctly signed delivery, as the service would send it: test your handlers with
 * `receiver.handle({ rawBody: d.body, headers: d.headers })` or POST it to your running app.
 */
export function createTestDelivery<T extends EventType>(
  type: T,
  options: TestDeliveryOptions<T>,
): TestDelivery<T> {
  const { body, event, headers, signatureHeader } = unsignedTestDelivery(type, options);
  headers[signatureHeader] = signPayload(body, options.secret, { timestamp: options.timestamp });
  return { body, event, headers };
}

/**
 * `createTestDelivery` on every runtime, signed with `signPayloadAsync`: a Worker's own tests (Cloudflare's
 * vitest pool, Miniflare) or an edge function can make a correctly signed delivery and send it.
 */
export async function createTestDeliveryAsync<T extends EventType>(
  type: T,
  options: TestDeliveryOptions<T>,
): Promise<TestDelivery<T>> {
  const { body, event, headers, signatureHeader } = unsignedTestDelivery(type, options);
  headers[signatureHeader] = await signPayloadAsync(body, options.secret, { timestamp: options.timestamp });
  return { body, event, headers };
}
