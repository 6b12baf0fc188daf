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
