import { randomBytes } from 'node:crypto';
import type { Receiver } from '@sms-webhooks/core';

export { captureLogger, sleep } from '@sms-webhooks/test-helpers';

/**
 * A key prefix no earlier run used. Tests may share one server through REDIS_URL, and records outlive a
 * run (the contract keeps keys an hour), so a fixed prefix makes the second run find the first's keys.
 */
export const runPrefix = (name: string) => `${name}-${randomBytes(6).toString('hex')}:`;

export const secret = 'whsec_redis0123456789abcdef0123456789ab';

export interface Answer {
  status: number;
  body: { received?: boolean; duplicate?: boolean; error?: { code: string } };
}

export async function send(
  receiver: Receiver,
  delivery: { body: string; headers: Record<string, string> },
): Promise<Answer> {
  const res = await receiver.handle({ rawBody: delivery.body, headers: delivery.headers });
  return { status: res.status, body: JSON.parse(res.body) };
}

/** Calls per key, for "ran exactly once" assertions. */
export function counter() {
  const counts = new Map<string, number>();
  return {
    counts,
    add(key: string) {
      counts.set(key, (counts.get(key) ?? 0) + 1);
    },
    get: (key: string) => counts.get(key) ?? 0,
  };
}
