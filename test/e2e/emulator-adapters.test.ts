import { type AnyWebhookEvent, createReceiver, MemoryStore } from '@sms-webhooks/core';
import { VirtualClock } from '@sms-webhooks/core/testing';
import type { AttemptReport, Emulator } from '@sms-webhooks/emulator';
import { adapters } from './adapters.js';
import { ALL_TYPES, startEmulator } from './setup.js';
import { lateReceiver, type Target } from './targets.js';

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

    it('handler failures give 5xx: attempts 1, 2, 3 reach the handler with one event id exactly 1 min and 5 min apart, then a redelivery is a duplicate', async () => {
      const late = lateReceiver();
      target = await start(late.receiver);
      // The emulator and the receiver share a VirtualClock: the waits are exact, and the signatures made
      // at the emulator's time are fresh at the receiver's.
      const clock = new VirtualClock();
      const reports: AttemptReport[] = [];
      const started = await startEmulator({ clock, onAttempt: (a) => void reports.push(a) });
      emulator = started.emulator;
      const webhook = await started.client.createWebhook({ url: target.url, events: ['message.sent'] });
      // after-handlers: the adapter answers 500 when the handler throws, and that drives the retries.
      const receiver = createReceiver({
        secret: webhook.secret,
        respond: 'after-handlers',
        logger: quiet,
        clock,
      });
      const calls: { id: string; attempt: number | undefined; at: number }[] = [];
      receiver.on('message.sent', (event, ctx) => {
        calls.push({ id: event.id, attempt: ctx.attempt, at: clock.now() });
        if (calls.length < 3) throw new Error(`fails attempt ${calls.length} on purpose`);
      });
      late.use(receiver);

      const t0 = clock.now();
      const [event] = emulator.emit('message.sent');
      await clock.runAll();
      expect(calls.map(({ id, attempt, at }) => ({ id, attempt, after: at - t0 }))).toEqual([
        { id: event!.id, attempt: 1, after: 0 },
        { id: event!.id, attempt: 2, after: 60_000 },
        { id: event!.id, attempt: 3, after: 360_000 },
      ]);
      expect(
        reports.map((r) => [r.statusCode, r.nextAttemptAt === null ? null : r.nextAttemptAt - t0]),
      ).toEqual([
        [500, 60_000],
        [500, 360_000],
        [200, null],
      ]);
      const [record] = emulator.deliveries(webhook.id);
      expect(record).toMatchObject({
        status: 'pending',
        delivered_at: expect.any(String),
        attempts: 3,
        last_status_code: 200,
        last_error: null,
      });

      emulator.redeliver(event!.id);
      await clock.runAll();
      expect(calls).toHaveLength(3); // the dedupe store answered the redelivery as a duplicate
      const records = emulator.deliveries(webhook.id);
      expect(records).toHaveLength(2);
      // A repeat carries a higher attempt number than the three before it (spec: "a repeat has a higher number").
      expect(records[0]).toMatchObject({ event_id: event!.id, status: 'pending', attempts: 4 });
    });
  });
}
