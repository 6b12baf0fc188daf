import { type AnyWebhookEvent, createReceiver, createTestDelivery, type Receiver } from '@sms-webhooks/core';
import { captureLogger } from '@sms-webhooks/test-helpers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, PATH, type RunningServer } from './helpers/adapter-servers.js';
import {
  BAD_INPUTS,
  BODY_TIMEOUT_MS,
  checkOutcome,
  handlerCalls,
  MAX_BODY,
  SECRET,
} from './helpers/bad-input-cases.js';
import { rawExchange } from './helpers/raw-http.js';

describe.each(ADAPTERS)('bad input through $name', (adapter) => {
  let server: RunningServer;
  let receiver: Receiver;
  const handled: AnyWebhookEvent[] = [];
  const logger = captureLogger();

  beforeAll(async () => {
    receiver = createReceiver({
      secret: SECRET,
      maxBodyBytes: MAX_BODY,
      bodyTimeoutMs: BODY_TIMEOUT_MS,
      logger,
    });
    receiver.onAny((event) => {
      handled.push(event);
    });
    server = await adapter.start(receiver);
  });
  afterAll(async () => {
    await server?.close();
  });

  /** The process still serves: a correctly signed delivery right after is accepted and handled once. */
  async function stillServes(): Promise<void> {
    const d = createTestDelivery('message.sent', { secret: SECRET });
    const res = await fetch(`http://127.0.0.1:${server.port}${PATH}`, {
      method: 'POST',
      headers: d.headers,
      body: d.body,
      signal: AbortSignal.timeout(5_000),
    });
    expect(res.status).toBe(200);
    await receiver.drain();
    expect(handled.at(-1)?.id).toBe(d.event.id);
  }

  it.each(BAD_INPUTS)('$name', async ({ steps, outcome: usual, outcomeFor, timeoutMs }) => {
    const outcome = outcomeFor?.[adapter.name] ?? usual;
    const before = handled.length;
    const res = await rawExchange(server.port, steps(), timeoutMs);
    checkOutcome(res, outcome);
    await receiver.drain();
    expect(handled.length - before).toBe(handlerCalls(outcome));
    // Whatever came back holds no secret, and nothing pollutes the prototypes of plain objects.
    expect(res.raw).not.toContain(SECRET);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(logger.text()).not.toContain(SECRET);
    await stillServes();
  });
});
