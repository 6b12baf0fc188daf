import { type AnyWebhookEvent, createReceiver, createTestDelivery } from '@sms-webhooks/core';
import { createWorker, jobIdFor, listFailed } from '@sms-webhooks/pg-boss';
import { describe, expect, it } from 'vitest';
import { queueSetUp, waitForJob } from './queue-set-up.js';
import { captureLogger, handOffReceiver, MAJORS, secret, useDatabase, waitFor } from './set-up.js';

describe.each(MAJORS)('$label', (major) => {
  const db = useDatabase('pgboss_event_text', major);

  // Text PostgreSQL's jsonb refuses: NUL, and UTF-16 halves of a surrogate pair on their own. Valid JSON
  // all the same (`\u0000`, `\ud83d`), and the receiver accepts it; the hand-off must not refuse it.
  const ODD_TEXTS = {
    nul: 'STOP\u0000',
    'lone high surrogate': 'reply \ud83d',
    'lone low surrogate': '\ude00 reply',
    'a pair split by NUL': '\ud83d\u0000\ude00',
    'a backslash text that looks like an escape': '\\u0000 \\ud800',
  };

  /** A delivery just under the receiver's 1 MiB body limit. */
  function largeDelivery() {
    const base = createTestDelivery('message.delivered', {
      secret,
      data: { metadata: { pad: '' } } as never,
    });
    const pad = 'x'.repeat(1024 * 1024 - Buffer.byteLength(base.body) - 64);
    return createTestDelivery('message.delivered', {
      secret,
      data: { metadata: { pad, nul: '\u0000' } } as never,
    });
  }

  describe('pg-boss holds any event the receiver accepted', () => {
    it('NUL, lone surrogates and a 1 MiB body: queued (200), and the worker sees the same event', async () => {
      const { boss, store, queue } = await queueSetUp(db);
      const { receiver } = handOffReceiver(boss, store, { queue });
      const deliveries = [
        ...Object.values(ODD_TEXTS).map((text) =>
          createTestDelivery('message.delivered', { secret, data: { metadata: { text } } as never }),
        ),
        largeDelivery(),
      ];
      expect(Buffer.byteLength(deliveries.at(-1)!.body)).toBeGreaterThan(1024 * 1024 - 100);
      for (const d of deliveries) {
        const res = await receiver.handle({ rawBody: d.body, headers: d.headers });
        expect({ id: d.event.id, status: res.status, body: res.body }).toEqual({
          id: d.event.id,
          status: 200,
          body: '{"received":true}',
        });
      }
      const seen = new Map<string, AnyWebhookEvent>();
      const worker = await createWorker(
        { 'message.delivered': (event) => void seen.set(event.id, event) },
        boss,
        {
          queue,
          store,
          pollingIntervalSeconds: 0.5,
          concurrency: 2,
          logger: captureLogger(),
        },
      );
      db.onCleanup(() => worker.close());
      await waitFor(() => seen.size === deliveries.length, 'every job to run', 30_000);
      for (const d of deliveries) {
        // The same event, every string unit for unit (a parse of the exact bytes the service signed).
        expect(seen.get(d.event.id)).toStrictEqual(JSON.parse(d.body));
      }
      // Completed after the handler ran: the dedupe record, then pg-boss's own completion.
      const states = async () =>
        Promise.all(deliveries.map(async (d) => (await boss.getJobById(queue, jobIdFor(d.event.id)))?.state));
      await waitFor(async () => (await states()).every((s) => s === 'completed'), 'every job to complete');
    }, 60_000);

    it('such an event that fails for good, with its text in the error, is listed by listFailed', async () => {
      const { boss, store, queue } = await queueSetUp(db);
      const { receiver } = handOffReceiver(boss, store, {
        queue,
        enqueue: { attempts: 1, retryDelaySeconds: 0, retryBackoff: false },
      });
      const d = createTestDelivery('message.delivered', {
        secret,
        data: { metadata: { text: ODD_TEXTS.nul } } as never,
      });
      expect((await receiver.handle({ rawBody: d.body, headers: d.headers })).status).toBe(200);
      const workerSide = createReceiver({ secret, store, logger: captureLogger() });
      workerSide.on('message.delivered', (event) => {
        const { text } = event.data.metadata as { text: string };
        throw new Error(`downstream refused ${text} \ud83d`);
      });
      const worker = await createWorker(workerSide, boss, { queue, pollingIntervalSeconds: 0.5 });
      db.onCleanup(() => worker.close());
      await waitForJob(boss, queue, d.event.id, 'failed', 'the job to fail');
      expect(await listFailed(boss, { queue })).toMatchObject([
        { eventId: d.event.id, type: 'message.delivered' },
      ]);
    });
  });
});
