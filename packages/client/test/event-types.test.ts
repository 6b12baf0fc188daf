import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '@sms-webhooks/client';
import { EVENT_TYPES, type EventType } from '@sms-webhooks/core';
import { describe, expect, expectTypeOf, it } from 'vitest';

// The client has no dependencies, so it keeps its own copy of the spec's event types; core's list is
// the source. A type added to one and not the other fails here (and in `tsc`, for the types).
describe('the client event types', () => {
  it('are core’s, in the same order', () => {
    expect([...WEBHOOK_EVENT_TYPES]).toEqual([...EVENT_TYPES]);
    expectTypeOf<WebhookEventType>().toEqualTypeOf<EventType>();
  });
});
