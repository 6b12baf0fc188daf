/**
 * A payload that fails the app's schema, end to end: the emulator delivers message.delivered to Express,
 * the app's schema is too strict (z.strictObject refuses the fields it does not name), and the answer is
 * 422 payload_schema_mismatch. Once the team deploys a tolerant schema, the service's next retry is handled
 * as a new event, since nothing was claimed; never fixed, the service's delivery list shows the 422s.
 */
import { createReceiver, MemoryStore, type Receiver } from '@sms-webhooks/core';
import { VirtualClock } from '@sms-webhooks/core/testing';
import type { AttemptReport, Emulator } from '@sms-webhooks/emulator';
import { z } from 'zod';
import { adapters } from './adapters.js';
import { startEmulator } from './setup.js';
import { lateReceiver, type Target } from './targets.js';

const quiet = { warn() {}, error() {} };
let emulator: Emulator | undefined;
let target: Target | undefined;

afterEach(async () => {
  await emulator?.close();
  await target?.close();
});

const fields = { id: z.string(), to: z.string(), status: z.string() };
const tooStrict = z.strictObject(fields);
const tolerant = z.looseObject(fields);

async function play(fixAfterFirstRefusal: boolean) {
  const late = lateReceiver();
  target = await adapters['express 5']!(late.receiver);
  const clock = new VirtualClock();
  const reports: AttemptReport[] = [];
  const store = new MemoryStore();
  const handled: string[] = [];
  let fixed: Receiver | undefined;
  const started = await startEmulator({
    clock,
    onAttempt: (a) => {
      reports.push(a);
      // The team reads the 422 and deploys a tolerant schema before the service's next attempt.
      if (a.statusCode === 422 && fixed !== undefined) late.use(fixed);
    },
  });
  emulator = started.emulator;
  const webhook = await started.client.createWebhook({ url: target.url, events: ['message.delivered'] });
  const make = (schema: typeof tooStrict | typeof tolerant) => {
    const receiver = createReceiver({ secret: webhook.secret, logger: quiet, clock, store });
    receiver.on('message.delivered', schema, (event) => void handled.push(event.data.status));
    return receiver;
  };
  late.use(make(tooStrict));
  if (fixAfterFirstRefusal) fixed = make(tolerant);
  emulator.simulateSend({ recipients: 1 });
  await clock.runAll();
  const answers = reports.map((r) => `${r.attempt} ${r.statusCode}`);
  const deliveries = await started.client.listDeliveries(webhook.id);
  return { answers, handled, deliveries, reports };
}

describe('emulator → Express: a payload that fails the schema, then a fixed schema', () => {
  it('422 first; the retry after the fix is handled once, and nothing more is sent', async () => {
    const { answers, handled, reports } = await play(true);
    expect(answers).toEqual(['1 422', '2 200']);
    expect(reports[0]!.responseBody).toContain('payload_schema_mismatch');
    expect(handled).toEqual(['delivered']);
  });

  it('never fixed: six 422s over the schedule, and the delivery list shows what never made it', async () => {
    const { answers, handled, deliveries } = await play(false);
    expect(answers).toEqual(['1 422', '2 422', '3 422', '4 422', '5 422', '6 422']);
    expect(handled).toEqual([]);
    const record = deliveries.data.find((d) => d.event_type === 'message.delivered');
    expect(record).toMatchObject({ attempts: 6, last_status_code: 422, delivered_at: null });
  });
});
