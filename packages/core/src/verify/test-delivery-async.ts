import type { EventType } from './event-types.js';
import { signPayloadAsync } from './sign-payload-async.js';
import { type TestDelivery, type TestDeliveryOptions, unsignedTestDelivery } from './test-delivery.js';

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
