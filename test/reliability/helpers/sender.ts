import type { TestDelivery } from '@sms-webhooks/core';
import { sleep } from '@sms-webhooks/test-helpers';
import { countStatus, type Tally } from './cluster.js';
import { MAX_ATTEMPTS, RETRY_WAITS_MS } from './retry-schedule.js';

export interface SendOptions {
  ports: number[];
  /** The instance the first attempt goes to; retries move on to the next one, as a load balancer may. */
  first: number;
  tally: Tally;
}

/**
 * Sends one delivery as the service does: any 2xx ends it; anything else (a 409 in flight, a 503 while
 * the store is down, a dropped connection) is retried on the spec's schedule, scaled down (see
 * retry-schedule.ts), with the delivery-attempt header 1…6. After the 6th failure the service gives
 * up, and so does this: it rejects, and the test counts the event as lost.
 */
export async function deliver(d: TestDelivery<'message.delivered'>, options: SendOptions): Promise<string> {
  const { ports, tally } = options;
  for (let attempt = 1; ; attempt++) {
    const port = ports[(options.first + attempt - 1) % ports.length]!;
    tally.attempts++;
    try {
      const res = await fetch(`http://127.0.0.1:${port}/webhooks`, {
        method: 'POST',
        headers: { ...d.headers, 'x-service-delivery-attempt': String(attempt) },
        body: d.body,
        signal: AbortSignal.timeout(30_000),
      });
      const body = await res.text();
      countStatus(tally, res.status);
      if (res.ok) {
        countAttempts(tally, attempt);
        return body;
      }
    } catch {
      countStatus(tally, 'network');
    }
    if (attempt === MAX_ATTEMPTS) {
      countAttempts(tally, attempt);
      tally.gaveUp++;
      throw new Error(`${d.event.id}: no 2xx in ${MAX_ATTEMPTS} attempts`);
    }
    // Up to 10% jitter, never shorter than the schedule: 64 senders should not retry in lockstep.
    const wait = RETRY_WAITS_MS[attempt - 1]!;
    await sleep(wait + Math.random() * wait * 0.1);
  }
}

function countAttempts(tally: Tally, attempts: number): void {
  tally.attemptsPerSend.set(attempts, (tally.attemptsPerSend.get(attempts) ?? 0) + 1);
  tally.maxAttempts = Math.max(tally.maxAttempts, attempts);
}
