import { type AnyWebhookEvent, createReceiver, MemoryStore } from '@sms-webhooks/core';
import type { AttemptReport, Emulator } from '@sms-webhooks/emulator';
import { adapters } from './adapters.js';
import { ALL_TYPES, startEmulator } from './setup.js';
import { lateReceiver, type Target } from './targets.js';
import { EARLY_MS, expectOnSchedule, scaledWaits, watchEventLoop } from './tolerance.js';

const quiet = { warn() {}, error() {} };
let emulator: Emulator | undefined;
let target: Target | undefined;

afterEach(async () => {
  await emulator?.close();
  await target?.close();
  emulator = undefined;
  target = undefined;
});

for (const [name, start] of Object.entries(adapters)) {
  describe(`emulator → ${name}`, () => {
    it('delivers every event type, verified against the webhook secret and typed in the handlers', async () => {
      const late = lateReceiver();
      target = await start(late.receiver);
      const started = await startEmulator();
      emulator = started.emulator;
      const webhook = await started.client.createWebhook({ url: target.url, events: ALL_TYPES });

      const receiver = createReceiver({
        secret: webhook.secret,
        store: new MemoryStore(),
        respond: 'after-handlers',
      });
      const seen: AnyWebhookEvent[] = [];
      const outcomes: string[] = [];
      receiver.onAny((event) => void seen.push(event));
      receiver.on(['message.delivered', 'message.failed'], (event) => {
        // Typed: `data` is a MessageObject for message.* events, so `.to` needs no cast.
        const to: string = event.data.to;
        outcomes.push(`${event.type} ${to}`);
      });
      late.use(receiver);

      const send = emulator.simulateSend({
        to: ['+15555550100', '+15555550101'],
        fail: ['+15555550101'],
        replies: { '+15555550100': 'Thanks!' },
      });
      await started.client.testWebhook(webhook.id);
      await emulator.waitForIdle(10_000);

      expect(new Set(seen.map((e) => e.type))).toEqual(new Set(ALL_TYPES));
      expect(seen).toHaveLength(7); // 2 sent, 1 delivered, 1 failed, 1 replied, 1 completed, 1 test
      expect(outcomes.sort()).toEqual(['message.delivered +15555550100', 'message.failed +15555550101']);
      for (const event of seen) {
        expect(event).toMatchObject({ object: 'event', api_version: 'v1', test: true });
        expect(event.id).toMatch(/^evt_/);
        if (event.type.startsWith('message.')) {
          expect(event.data).toMatchObject({
            sms_id: send.sms_id,
            id: expect.stringMatching(/^msg_/),
            kind: 'utility',
          });
        }
      }
      const deliveries = (await started.client.listDeliveries(webhook.id)).data;
      expect(deliveries).toHaveLength(7);
      expect(
        deliveries.every(
          (d) =>
            d.status === 'pending' &&
            d.delivered_at !== null &&
            d.last_status_code === 200 &&
            d.attempts === 1,
        ),
      ).toBe(true);
      expect(deliveries.filter((d) => d.test).map((d) => d.event_type)).toEqual(['webhook.test']);
    });

    it('handler failures give 5xx: attempts 1, 2, 3 reach the handler with one event id at the scaled waits, then a redelivery is a duplicate', async () => {
      const late = lateReceiver();
      target = await start(late.receiver);
      const timeScale = 1 / 1000; // waits of 60 ms and 300 ms
      const reports: AttemptReport[] = [];
      const started = await startEmulator({ timeScale, onAttempt: (a) => void reports.push(a) });
      emulator = started.emulator;
      const webhook = await started.client.createWebhook({ url: target.url, events: ['message.sent'] });
      // after-handlers: the adapter answers 500 when the handler throws, and that drives the retries.
      const receiver = createReceiver({ secret: webhook.secret, respond: 'after-handlers', logger: quiet });
      const calls: { id: string; attempt: number | undefined; at: number }[] = [];
      receiver.on('message.sent', (event, ctx) => {
        calls.push({ id: event.id, attempt: ctx.attempt, at: performance.now() });
        if (calls.length < 3) throw new Error(`fails attempt ${calls.length} on purpose`);
      });
      late.use(receiver);

      const loop = watchEventLoop();
      const [event] = emulator.emit('message.sent');
      await emulator.waitForIdle(10_000);
      const stallMs = loop.stop();
      expect(calls.map(({ id, attempt }) => ({ id, attempt }))).toEqual([
        { id: event!.id, attempt: 1 },
        { id: event!.id, attempt: 2 },
        { id: event!.id, attempt: 3 },
      ]);
      expect(reports.map((r) => r.statusCode)).toEqual([500, 500, 200]);
      const [wait1, wait2] = scaledWaits(timeScale);
      // The handler never sees a retry early; how late it comes is timed by the sender (expectOnSchedule).
      expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(wait1 - EARLY_MS);
      expect(calls[2]!.at - calls[1]!.at).toBeGreaterThanOrEqual(wait2 - EARLY_MS);
      expectOnSchedule(reports, [wait1, wait2], stallMs);
      const [record] = emulator.deliveries(webhook.id);
      expect(record).toMatchObject({
        status: 'pending',
        delivered_at: expect.any(String),
        attempts: 3,
        last_status_code: 200,
        last_error: null,
      });

      emulator.redeliver(event!.id);
      await emulator.waitForIdle(10_000);
      expect(calls).toHaveLength(3); // the dedupe store answered the redelivery as a duplicate
      const records = emulator.deliveries(webhook.id);
      expect(records).toHaveLength(2);
      // A repeat carries a higher attempt number than the three before it (spec: "a repeat has a higher number").
      expect(records[0]).toMatchObject({ event_id: event!.id, status: 'pending', attempts: 4 });
    });
  });
}
