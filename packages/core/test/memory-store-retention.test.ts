import { createReceiver, createTestDelivery, MemoryStore } from '@sms-webhooks/core';
import { describe, expect, it } from 'vitest';
import { captureLogger, secret } from './helpers.js';

// Issue 14, point 2: MemoryStore keeps at most maxEntries records, and forgot early events silently.
describe('MemoryStore retention through a receiver', () => {
  it('past maxEntries an early event is forgotten and its replay runs again; the store warns once', async () => {
    const logger = captureLogger();
    const store = new MemoryStore({ maxEntries: 5, logger });
    const receiver = createReceiver({ secret, store, logger, respond: 'after-handlers' });
    const runs = new Map<string, number>();
    receiver.on('message.delivered', (event) => void runs.set(event.id, (runs.get(event.id) ?? 0) + 1));
    const send = async (d: { body: string; headers: Record<string, string> }) => {
      const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
      return JSON.parse(res.body) as Record<string, unknown>;
    };

    const first = createTestDelivery('message.delivered', { secret });
    expect(await send(first)).toEqual({ received: true });
    expect(await send(first)).toEqual({ received: true, duplicate: true });
    for (let i = 0; i < 5; i++) await send(createTestDelivery('message.delivered', { secret }));
    expect(store.size).toBe(5);

    // The same signed bytes, well inside the 300 s tolerance: the store no longer knows the event.
    expect(await send(first)).toEqual({ received: true });
    expect(runs.get(first.event.id)).toBe(2);
    const warnings = logger.lines.filter((l) => l.includes('MemoryStore is full'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`forgot ${first.event.id}`);
    expect(warnings[0]).toContain('Use RedisStore from @sms-webhooks/redis');

    // Further evictions say nothing more: one line per store, not one per event.
    for (let i = 0; i < 20; i++) await send(createTestDelivery('message.delivered', { secret }));
    expect(logger.lines.filter((l) => l.includes('MemoryStore is full'))).toHaveLength(1);
  });
});
