import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a receiver answers, and the event whose handler runs once the answer is out. */
export interface HandAnswer {
  status: number;
  body: object;
  run?: { id: string; type: string };
}

const REFUSED: HandAnswer = { status: 400, body: { error: 'invalid signature' } };
const DUPLICATE: HandAnswer = { status: 200, body: { received: true, duplicate: true } };
const IN_FLIGHT: HandAnswer = { status: 409, body: { error: 'in flight' } };
/** As many ids as MemoryStore keeps by default. */
const KEPT = 100_000;

/**
 * Our job, written by hand (issue 48): the signature over `<t>.<raw body>` with `createHmac` and
 * `timingSafeEqual`, the 300 s tolerance, `JSON.parse`, a Map of event ids for dedupe (the oldest
 * dropped past 100,000), and the handler run after the answer: a failed run gives its id back, so the
 * service's retry runs it again. Each route answers with `receive`, then `setImmediate(run, event)`.
 */
export function byHand(secret: string, handler: (event: unknown) => Promise<void>) {
  const seen = new Map<string, 'running' | 'done'>();

  function verify(body: Buffer, header: unknown): { id: string; type: string } | undefined {
    if (typeof header !== 'string') return undefined;
    let t = '';
    let v1 = '';
    for (const part of header.split(',')) {
      if (part.startsWith('t=')) t = part.slice(2);
      else if (part.startsWith('v1=')) v1 = part.slice(3);
    }
    if (!/^\d+$/.test(t) || Math.abs(Date.now() / 1000 - Number(t)) > 300) return undefined;
    const expected = createHmac('sha256', secret).update(`${t}.`).update(body).digest();
    const given = Buffer.from(v1, 'hex');
    if (given.length !== expected.length || !timingSafeEqual(expected, given)) return undefined;
    try {
      return JSON.parse(body.toString('utf8'));
    } catch {
      return undefined;
    }
  }

  return {
    receive(body: Buffer, header: unknown): HandAnswer {
      const event = verify(body, header);
      if (typeof event?.id !== 'string') return REFUSED;
      const state = seen.get(event.id);
      if (state === 'done') return DUPLICATE;
      if (state === 'running') return IN_FLIGHT;
      if (seen.size >= KEPT) seen.delete(seen.keys().next().value!);
      seen.set(event.id, 'running');
      return { status: 200, body: { received: true }, run: event };
    },
    async run(event: { id: string }): Promise<void> {
      try {
        await handler(event);
        seen.set(event.id, 'done');
      } catch {
        seen.delete(event.id);
      }
    },
  };
}
