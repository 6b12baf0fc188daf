import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { VirtualClock } from '@sms-webhooks/core/testing';
import { closeAll, startEmulator } from './helpers.js';

let app: Server | undefined;
afterEach(async () => {
  await closeAll();
  await new Promise<void>((r) => (app ? app.close(() => r()) : r()));
  app = undefined;
});

/** A receiving app answering each request with the next status of `statuses` (the last one repeats). */
async function appAnswering(...statuses: number[]): Promise<string> {
  let n = 0;
  app = createServer((req, res) => {
    req.resume();
    res.writeHead(statuses[Math.min(n++, statuses.length - 1)]!).end();
  });
  await new Promise<void>((r) => app!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(app.address() as AddressInfo).port}/webhooks`;
}

/** The emulator on a VirtualClock: a retry comes only when the test moves time. */
async function registered(url: string) {
  const clock = new VirtualClock();
  const h = await startEmulator({ allowInsecureLoopback: true, clock });
  const t = await h.token();
  const res = await h.call('POST', '/v1/webhooks', { token: t, body: { url, events: ['message.sent'] } });
  const list = async () => (await h.call('GET', `/v1/webhooks/${res.body.id}/deliveries`, { token: t })).body;
  return { ...h, clock, list };
}

describe('delivery record status (spec section 3: `pending` on a record with one attempt and a 200)', () => {
  it('a 2xx on the first attempt leaves the record pending, with delivered_at set and nothing scheduled', async () => {
    const h = await registered(await appAnswering(200));
    h.emulator.emit('message.sent');
    await h.clock.advance(0);
    expect(h.emulator.pendingDeliveries).toBe(0);
    expect((await h.list()).data).toEqual([
      expect.objectContaining({
        status: 'pending',
        attempts: 1,
        last_status_code: 200,
        last_error: null,
        delivered_at: expect.any(String),
        next_attempt_at: null,
      }),
    ]);
  });

  it('is pending while a retry is scheduled, and stays pending once a retry gets a 2xx', async () => {
    const h = await registered(await appAnswering(500, 204));
    h.emulator.emit('message.sent');
    await h.clock.advance(0);
    const due = h.clock.now() + 60_000;
    expect((await h.list()).data[0]).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_status_code: 500,
      delivered_at: null,
      next_attempt_at: new Date(due).toISOString(),
    });
    await h.clock.advance('1m');
    expect((await h.list()).data[0]).toMatchObject({
      status: 'pending',
      attempts: 2,
      last_status_code: 204,
      delivered_at: new Date(due).toISOString(),
      next_attempt_at: null,
    });
  });

  it('keeps the record through a night of 500s: each attempt, its answer and the next time, then null', async () => {
    const h = await registered(await appAnswering(500));
    h.emulator.emit('message.sent');
    const t0 = h.clock.now();
    const seen: unknown[] = [];
    const waits = [1, 5, 30, 120, 720].map((m) => m * 60_000);
    await h.clock.advance(0);
    for (let attempt = 1; attempt <= 6; attempt++) {
      const [record] = (await h.list()).data;
      seen.push([record.attempts, record.last_status_code, record.last_error, record.next_attempt_at]);
      if (attempt < 6) await h.clock.advance(waits[attempt - 1]!);
    }
    const at = (minutes: number) => new Date(t0 + minutes * 60_000).toISOString();
    expect(seen).toEqual([
      [1, 500, 'HTTP 500', at(1)],
      [2, 500, 'HTTP 500', at(6)],
      [3, 500, 'HTTP 500', at(36)],
      [4, 500, 'HTTP 500', at(156)],
      [5, 500, 'HTTP 500', at(876)],
      [6, 500, 'HTTP 500', null],
    ]);
    // 14 h 36 min of virtual time later, the list still has the one record, and nothing is scheduled.
    expect(h.clock.now() - t0).toBe(876 * 60_000);
    expect(h.clock.pendingTimers).toBe(0);
    expect((await h.list()).data).toHaveLength(1);
  });

  it('is failed after the sixth failed attempt, with delivered_at null', async () => {
    const h = await registered(await appAnswering(503));
    h.emulator.emit('message.sent');
    await h.clock.runAll();
    expect((await h.list()).data[0]).toMatchObject({
      status: 'failed',
      attempts: 6,
      last_status_code: 503,
      delivered_at: null,
      next_attempt_at: null,
    });
  });
});
