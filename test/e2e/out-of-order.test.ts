/**
 * Events out of order, end to end: the emulator plays a send (message.sent, then message.delivered), the
 * app's first answer to message.sent is a 500, so the service's retry of it comes a minute after
 * message.delivered was handled. With `order: true` that late message.sent is answered stale and the
 * app's recorded status stays delivered; without it, the status goes back to sent (the bug this fixes).
 */
import { createReceiver } from '@sms-webhooks/core';
import { VirtualClock } from '@sms-webhooks/core/testing';
import type { AttemptReport, Emulator } from '@sms-webhooks/emulator';
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

async function play(order: boolean) {
  const late = lateReceiver();
  target = await adapters['express 5']!(late.receiver);
  const clock = new VirtualClock();
  const reports: AttemptReport[] = [];
  const started = await startEmulator({ clock, onAttempt: (a) => void reports.push(a) });
  emulator = started.emulator;
  const webhook = await started.client.createWebhook({
    url: target.url,
    events: ['message.sent', 'message.delivered'],
  });
  const receiver = createReceiver({
    secret: webhook.secret,
    respond: 'after-handlers',
    logger: quiet,
    clock,
    order,
  });
  const status = new Map<string, string>();
  let sentAttempts = 0;
  receiver.on(['message.sent', 'message.delivered'], (event) => {
    if (event.type === 'message.sent' && ++sentAttempts === 1) throw new Error('database blip');
    status.set(event.data.id, event.data.status);
  });
  late.use(receiver);
  const send = emulator.simulateSend({ recipients: 1 });
  await clock.runAll();
  const messageId = send.messages[0]!.id;
  const answers = reports.map((r) => `${r.eventType} ${r.statusCode}`);
  return { status: status.get(messageId), answers, sentAttempts };
}

describe('emulator → Express: message.sent retried after message.delivered', () => {
  it('with order: true the late message.sent is answered stale and the status stays delivered', async () => {
    const { status, answers, sentAttempts } = await play(true);
    expect(answers).toEqual(['message.sent 500', 'message.delivered 200', 'message.sent 200']);
    expect(sentAttempts).toBe(1); // the retry reached no handler
    expect(status).toBe('delivered');
  });

  it('without order the late message.sent regresses the status to sent (what order prevents)', async () => {
    const { status, sentAttempts } = await play(false);
    expect(sentAttempts).toBe(2);
    expect(status).toBe('sent');
  });
});
