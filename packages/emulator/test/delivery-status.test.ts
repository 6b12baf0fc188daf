import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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

async function registered(url: string, timeScale: number) {
  const h = await startEmulator({ allowInsecureLoopback: true, timeScale });
  const t = await h.token();
  const res = await h.call('POST', '/v1/webhooks', { token: t, body: { url, events: ['message.sent'] } });
  const list = async () => (await h.call('GET', `/v1/webhooks/${res.body.id}/deliveries`, { token: t })).body;
  return { ...h, list };
}

describe('delivery record status (spec section 3: `pending` on a record with one attempt and a 200)', () => {
  it('a 2xx on the first attempt leaves the record pending, with delivered_at set and nothing scheduled', async () => {
    const h = await registered(await appAnswering(200), 1);
    h.emulator.emit('message.sent');
    await h.emulator.waitForIdle(5000);
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
    // At 1/30 the first retry is due 2 s after the first attempt: the read of the scheduled state, one
    // HTTP call, lands before it even on a loaded machine (at 1/1000 it had 60 ms).
    const h = await registered(await appAnswering(500, 204), 1 / 30);
    const first = new Promise<number | null>((resolve) => {
      const off = h.emulator.onAttempt((a) => {
        off();
        resolve(a.nextAttemptAt);
      });
    });
    h.emulator.emit('message.sent');
    const due = await first;
    const [record] = (await h.list()).data;
    expect(due).not.toBeNull();
    expect(Date.now(), 'the record was read before the retry was due').toBeLessThan(due!);
    expect(record).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_status_code: 500,
      delivered_at: null,
      next_attempt_at: new Date(due!).toISOString(),
    });
    await h.emulator.waitForIdle(5000);
    expect((await h.list()).data[0]).toMatchObject({
      status: 'pending',
      attempts: 2,
      last_status_code: 204,
      delivered_at: expect.any(String),
      next_attempt_at: null,
    });
  });

  it('is failed after the sixth failed attempt, with delivered_at null', async () => {
    const h = await registered(await appAnswering(503), 1 / 100_000);
    h.emulator.emit('message.sent');
    await h.emulator.waitForIdle(10_000);
    expect((await h.list()).data[0]).toMatchObject({
      status: 'failed',
      attempts: 6,
      last_status_code: 503,
      delivered_at: null,
      next_attempt_at: null,
    });
  });
});
