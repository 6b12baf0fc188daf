/**
 * `pnpm demo`: the whole loop on one machine, in a few seconds. The emulator plays the SMS service,
 * the Express example app receives its webhooks, and the client registers the webhook like a user would.
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, deliveryOutcome } from '@sms-webhooks/client';
import { MemoryStore } from '@sms-webhooks/core';
import { type AttemptReport, createEmulator } from '@sms-webhooks/emulator';
import { createApp } from '../express/app.js';

/** 1/600 turns the service's 1 min first retry wait into 100 ms. */
const TIME_SCALE = 1 / 600;
const RECIPIENTS = ['+15555550100', '+15555550101', '+15555550102'];
const [REPLIES, FLAKY, UNREACHABLE] = RECIPIENTS as [string, string, string];

const out = (line = '') => console.log(line);
const step = (title: string) => out(`\n── ${title}`);
const short = (id: string) => `${id.slice(0, 12)}…`;

function describeAttempt(a: AttemptReport): string {
  const outcome = a.delivered
    ? 'delivered'
    : a.nextAttemptAt === null
      ? 'failed for good'
      : `retry in ${Math.round(a.nextAttemptAt - Date.now())} ms (the service waits 1 min; the demo runs ${Math.round(1 / TIME_SCALE)}× faster)`;
  return `  service → ${a.eventType.padEnd(17)} ${short(a.eventId)} attempt ${a.attempt}: HTTP ${a.statusCode ?? '-'} ${outcome}`;
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  const lastAnswer = new Map<string, string>();
  step('1. Start the service emulator and the Express example app');
  const emulator = createEmulator({
    timeScale: TIME_SCALE,
    allowInsecureLoopback: true,
    onAttempt: (a) => {
      lastAnswer.set(a.eventId, a.responseBody);
      out(describeAttempt(a));
    },
  });
  const baseUrl = await emulator.listen();
  // The app needs the webhook secret, which exists only once the webhook is registered with the
  // app's URL: listen first, plug the Express app in after registration.
  let app: RequestListener | undefined;
  const server = createServer((req, res) => (app ? app(req, res) : res.writeHead(503).end()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/sms`;
  out(`  emulator on ${baseUrl}, app on ${appUrl}`);

  step('2. Register the webhook through @sms-webhooks/client');
  const client = createClient({ apiKey: 'sk_test_demo', baseUrl, allowInsecureLoopback: true });
  const webhook = await client.createWebhook({
    url: appUrl,
    events: [
      'message.sent',
      'message.delivered',
      'message.failed',
      'message.replied',
      'sms.completed',
      'webhook.test',
    ],
    description: 'pnpm demo',
  });
  out(`  ${webhook.id} → ${webhook.url} (secret ${webhook.secret.slice(0, 10)}…, shown once)`);

  const seen: string[] = [];
  const example = createApp({
    secret: webhook.secret,
    store: new MemoryStore(),
    respond: 'after-handlers',
    log: (line) => {
      seen.push(line);
      out(`  app     │ ${line}`);
    },
  });
  // A failure on purpose: the first delivery of one recipient's message.delivered throws, so the app
  // answers 500 and the service retries (same event id, attempt 2).
  example.receiver.on('message.delivered', (event, ctx) => {
    if (event.data.to === FLAKY && ctx.attempt === 1)
      throw new Error('database briefly unavailable (on purpose)');
  });
  app = example.app;

  step('3. The test operation (POST /v1/webhooks/{id}/test)');
  await client.testWebhook(webhook.id);
  await emulator.waitForIdle(10_000);

  step(`4. Simulate a send to ${RECIPIENTS.length} recipients: ${UNREACHABLE} fails, ${REPLIES} replies`);
  out(`  the app fails ${FLAKY}'s message.delivered once, on purpose`);
  const send = emulator.simulateSend({
    to: RECIPIENTS,
    fail: [UNREACHABLE],
    replies: { [REPLIES]: 'Thanks, see you at 10!' },
    metadata: { order_id: 'ord_1042' },
  });
  await emulator.waitForIdle(15_000);

  step('5. The service sends one event again (a duplicate): the app acknowledges it, handlers do not run');
  const records = (await client.listDeliveries(webhook.id)).data;
  const retried = records.find((d) => d.attempts > 1);
  if (!retried) throw new Error('expected one delivery to need a retry');
  const before = seen.length;
  emulator.redeliver(retried.event_id);
  await emulator.waitForIdle(10_000);
  const duplicateRan = seen.length !== before;
  out(`  the app answered: ${lastAnswer.get(retried.event_id)}`);
  out(`  handlers ran for the duplicate: ${duplicateRan ? 'yes (unexpected!)' : 'no'}`);

  step('6. Delivery records (GET /v1/webhooks/{id}/deliveries), oldest first');
  const final = (await client.listDeliveries(webhook.id)).data.reverse();
  // `status` stays `pending` even after a 200 (as the spec shows); the outcome comes from the fields.
  out('  outcome: read from delivered_at and next_attempt_at (deliveryOutcome from @sms-webhooks/client)');
  out("  status:  the record's own field, `pending` on every row: the service shows `pending` even after");
  out('           a 200 and `failed` only once the retries are used up, so do not read success from it');
  out('');
  out('  event type         event id       outcome    status   attempts  last code');
  for (const d of final) {
    out(
      `  ${d.event_type.padEnd(18)} ${short(d.event_id)}  ${deliveryOutcome(d).padEnd(10)} ${d.status.padEnd(8)} ${String(d.attempts).padEnd(9)} ${d.last_status_code ?? '-'}`,
    );
  }

  step('7. What the handlers saw');
  const counts = new Map<string, number>();
  for (const line of seen) {
    const type = line.split(' ')[0]!;
    if (type !== 'error:' && type !== 'warn:') counts.set(type, (counts.get(type) ?? 0) + 1);
  }
  out(`  ${[...counts].map(([type, n]) => `${type} ×${n}`).join(', ')}`);
  out(
    `  (send ${send.sms_id}; ${FLAKY}'s message.delivered ran at attempt 1, failed, and again at attempt 2)`,
  );

  await emulator.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await example.receiver.close(5000);

  const problems: string[] = [];
  if (final.some((d) => deliveryOutcome(d) !== 'delivered'))
    problems.push('a delivery did not end delivered');
  if (retried.attempts !== 2)
    problems.push(`the failed delivery took ${retried.attempts} attempts, expected 2`);
  if (duplicateRan) problems.push('the duplicate reached the handlers');
  if (!lastAnswer.get(retried.event_id)?.includes('"duplicate":true'))
    problems.push('the duplicate was not answered as one');
  if (final.length !== 10) problems.push(`expected 10 delivery records, got ${final.length}`);
  if (problems.length > 0) throw new Error(problems.join('; '));
  out(
    `\nDemo finished in ${((Date.now() - startedAt) / 1000).toFixed(1)} s: every event delivered, one retried, the duplicate dropped.`,
  );
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
