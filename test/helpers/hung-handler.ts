/**
 * The queue workers' handler time-out tests, whatever the engine: a worker-side receiver on a virtual
 * clock whose handler hangs on its first run and succeeds on the retry.
 */
import { createReceiver, type HandlerContext, type Receiver, type ReceiverOptions } from '@sms-webhooks/core';
import { VirtualClock } from '@sms-webhooks/core/testing';
import { expect } from 'vitest';
import { captureLogger, waitFor } from './index.js';

export const HANDLER_TIMEOUT_MS = 60_000;

/**
 * The receiver a worker is built from (`handlerTimeoutMs` one minute), its `message.delivered` handler
 * hanging the first time (a query with no time-out of its own), and `timeOut()`, which waits for that run
 * and moves the clock to its time-out, checking that `ctx.signal` aborts then and not before.
 */
export function hungOnce(options: Pick<ReceiverOptions, 'secret' | 'store'>) {
  const clock = new VirtualClock(Date.now());
  const receiver: Receiver = createReceiver({
    ...options,
    logger: captureLogger(),
    clock,
    handlerTimeoutMs: HANDLER_TIMEOUT_MS,
  });
  const signals: AbortSignal[] = [];
  receiver.on('message.delivered', (_event, ctx: HandlerContext) => {
    signals.push(ctx.signal!);
    return signals.length === 1 ? new Promise<void>(() => {}) : undefined;
  });
  async function timeOut(): Promise<void> {
    await waitFor(() => signals.length === 1, 'the first run');
    await clock.advance(HANDLER_TIMEOUT_MS - 1);
    expect(signals[0]!.aborted).toBe(false);
    await clock.advance(1);
    expect(signals[0]!.reason).toMatchObject({ name: 'TimeoutError', code: 'ERR_SMS_HANDLER_TIMEOUT' });
  }
  return { receiver, signals, timeOut };
}
