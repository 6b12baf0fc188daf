/**
 * What the queue hand-offs' `order` tests share, whatever the engine: status deliveries of one message
 * at known versions, a replayable shuffle, and handlers that record how the workers ran them.
 */
import { createTestDelivery, type EventType, type Receiver } from '@sms-webhooks/core';
import { expect } from 'vitest';
import { waitFor } from './index.js';

/** The status events, each of which carries its message's version. */
export const STATUSES: EventType[] = ['message.sent', 'message.delivered', 'message.failed'];

/** Signs, with `secret`, a status event of `message` whose version is `second` seconds past a fixed minute. */
export function statusSigner(secret: string) {
  return (type: EventType, message: string, second: number) => {
    const at = `2026-11-27T10:00:${String(second).padStart(2, '0')}Z`;
    return createTestDelivery(type, { secret, data: { id: message, updated_at: at } as never });
  };
}

/**
 * Per message: sent, a retry of sent stamped one second after the first (older than the final status),
 * then its final status two seconds later, delivered for the even messages and failed for the odd ones.
 */
export function sentRetriedAndFinal(status: ReturnType<typeof statusSigner>, messages: string[]) {
  return messages.flatMap((m, i) => [
    status('message.sent', m, 1),
    status('message.sent', m, 2),
    status(i % 2 === 0 ? 'message.delivered' : 'message.failed', m, 3),
  ]);
}

/** A fixed shuffle (a small LCG), so a failure can be replayed. */
export function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** A handler, shared by several workers, that records each message's last status and any overlap. */
export function overlapRecorder() {
  const last = new Map<string, string>();
  const running = new Set<string>();
  const overlaps: string[] = [];
  let ran = 0;
  const handler = async (event: { type: string; data: { id: string } }) => {
    const m = event.data.id;
    if (running.has(m)) overlaps.push(m);
    running.add(m);
    await new Promise((resolve) => setTimeout(resolve, 5));
    last.set(m, event.type);
    running.delete(m);
    ran++;
  };
  return { handler, last, overlaps, ran: () => ran };
}

/**
 * After `sentRetriedAndFinal`'s deliveries ran: no two of one message at once, each message at its
 * final status, and every job either ran or was stale, never both; the shuffle puts some older events
 * after newer ones.
 */
export function expectNewestStatuses(
  recorder: ReturnType<typeof overlapRecorder>,
  messages: string[],
  deliveries: unknown[],
  stale: string[],
) {
  expect(recorder.overlaps).toEqual([]);
  for (const [i, m] of messages.entries()) {
    expect(recorder.last.get(m), m).toBe(i % 2 === 0 ? 'message.delivered' : 'message.failed');
  }
  expect(recorder.ran() + stale.length).toBe(deliveries.length);
  expect(stale.length).toBeGreaterThan(0);
}

/**
 * Two workers (started by `startWorker`) and one message: its message.sent starts on the first and is held
 * there until `unblock()`; the second worker is up when its message.delivered is handed off. `seen` lists
 * the types the handler started, in order.
 */
export async function deliveredWhileSentRuns(
  receiver: Pick<Receiver, 'handle'>,
  status: ReturnType<typeof statusSigner>,
  message: string,
  startWorker: (handler: (event: { type: string }) => Promise<void>, stale: string[]) => Promise<unknown>,
) {
  let unblock!: () => void;
  const blocked = new Promise<void>((resolve) => {
    unblock = resolve;
  });
  const seen: string[] = [];
  const stale: string[] = [];
  const handler = async (event: { type: string }) => {
    seen.push(event.type);
    if (event.type === 'message.sent') await blocked;
  };
  await startWorker(handler, stale);
  const sent = status('message.sent', message, 1);
  await receiver.handle({ rawBody: sent.body, headers: sent.headers });
  await waitFor(() => seen.length === 1, 'message.sent to start');
  await startWorker(handler, stale);
  const delivered = status('message.delivered', message, 2);
  await receiver.handle({ rawBody: delivered.body, headers: delivered.headers });
  return { sent, delivered, seen, stale, unblock: () => unblock() };
}
