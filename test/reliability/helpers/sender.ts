import type { TestDelivery } from '@sms-webhooks/core';
import { countStatus, type Tally } from './cluster.js';

export interface SendOptions {
  ports: number[];
  /** The instance the first attempt goes to; retries move on to the next one, as a load balancer may. */
  first: number;
  tally: Tally;
  /** Give up after this long: the event then counts as lost. */
  deadlineMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends one delivery as the service does: retry on anything but a 2xx (a 409 in flight, a 503 while the
 * store is down, a dropped connection) with a short backoff instead of the real minutes, bumping the
 * delivery-attempt header each time. Resolves with the final 2xx body, or rejects at the deadline.
 */
export async function deliver(d: TestDelivery<'message.delivered'>, options: SendOptions): Promise<string> {
  const { ports, tally } = options;
  const deadline = Date.now() + (options.deadlineMs ?? 60_000);
  for (let attempt = 1; ; attempt++) {
    const port = ports[(options.first + attempt - 1) % ports.length]!;
    tally.attempts++;
    try {
      const res = await fetch(`http://127.0.0.1:${port}/webhooks`, {
        method: 'POST',
        headers: { ...d.headers, 'x-service-delivery-attempt': String(Math.min(attempt, 6)) },
        body: d.body,
        signal: AbortSignal.timeout(30_000),
      });
      const body = await res.text();
      countStatus(tally, res.status);
      if (res.ok) return body;
    } catch {
      countStatus(tally, 'network');
    }
    if (Date.now() > deadline) throw new Error(`${d.event.id}: no 2xx before the deadline`);
    await sleep(Math.min(25 * attempt, 400) + Math.random() * 25);
  }
}
