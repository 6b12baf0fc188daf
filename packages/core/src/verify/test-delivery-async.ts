import type { EventType, WebhookEvent } from './event-types.js';
import { DEFAULT_HEADER_PREFIX, headerNames } from './headers.js';
import { signPayloadAsync } from './sign-payload-async.js';
import { randomId, sampleData, type TestDelivery, type TestDeliveryOptions } from './test-delivery.js';

/**
 * `createTestDelivery` on every runtime, signed with `signPayloadAsync`: a Worker's own tests (Cloudflare's
 * vitest pool, Miniflare) or an edge function can make a correctly signed delivery and send it.
 */
export async function createTestDeliveryAsync<T extends EventType>(
  type: T,
  options: TestDeliveryOptions<T>,
): Promise<TestDelivery<T>> {
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
  const body = JSON.stringify(event);
  const names = headerNames(options.headerPrefix ?? DEFAULT_HEADER_PREFIX);
  return {
    body,
    event,
    headers: {
      'content-type': 'application/json',
      [names.signature]: await signPayloadAsync(body, options.secret, { timestamp: options.timestamp }),
      [names.eventId]: event.id,
      [names.eventType]: type,
      [names.attempt]: String(options.attempt ?? 1),
    },
  };
}
