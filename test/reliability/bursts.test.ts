import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createClient } from '@sms-webhooks/client';
import { type AnyWebhookEvent, createReceiver } from '@sms-webhooks/core';
import { VirtualClock } from '@sms-webhooks/core/testing';
import { createEmulator } from '@sms-webhooks/emulator';
import { webhookMiddleware } from '@sms-webhooks/express';
import { describe, expect, it } from 'vitest';
import { report, scaled } from './helpers/scale.js';

const SECRET = 'whsec_bursts_load_test_0123456789abcdef';
/** Bulk sends of this many recipients: `message.sent` and `.delivered` each, and one `sms.completed`. */
const RECIPIENTS = 1_000;
/** 20,010 deliveries in CI; 50,025 in soak, which takes five of the service's six attempts. */
const SENDS = scaled(10, 25);
const MAX_CONCURRENCY = 100;
const MAX_QUEUE = 9_900;
/** Each handler takes this long on the virtual clock (a slow database call). */
const HANDLER_MS = 250;
/**
 * Heap still in use after a full GC, above where it started, at its highest: the emulator's own record
 * of every event and the receiver's dedupe records grow with the burst; the backlog is bounded.
 */
const RETAINED_HEAP_BOUND_MB = 160;

/**
 * A burst the size of a 10,000-recipient send, replayed by the emulator on a VirtualClock: every attempt
 * is real HTTP, every wait (the handlers', the service's 1 min … 12 h schedule) virtual. The receiver
 * runs at most MAX_CONCURRENCY handlers and keeps at most MAX_QUEUE more waiting; the rest is answered 503
 * and comes back with the service's retries. No event may be lost or handled twice.
 */
describe('a burst under maxConcurrency, replayed by the emulator on a virtual clock', () => {
  it(
    `${SENDS} sends of ${RECIPIENTS} recipients: handlers and backlog stay bounded, each event is handled once`,
    async () => {
      const clock = new VirtualClock(Date.UTC(2026, 0, 1));
      const started = performance.now();
      const handled = new Map<string, number>();
      let running = 0;
      let mostRunning = 0;
      let accepted = 0;
      let handledCount = 0;
      let mostBacklog = 0;
      let entryRefusals = 0;
      const baseline = retainedHeap();
      let peakHeap = baseline;

      const receiver = createReceiver({
        secret: SECRET,
        clock,
        logger: { warn() {}, error() {} },
        maxConcurrency: MAX_CONCURRENCY,
        maxQueue: MAX_QUEUE,
        // Counts the refusals answered before a body was read (the entry's); no delivery is observed.
        instrumentation: { startDelivery: () => undefined, refused: () => void entryRefusals++ },
      });
      const refusals = new Map<string, number>();
      receiver.onRefused(({ code }) => void refusals.set(code, (refusals.get(code) ?? 0) + 1));
      const handle = async (event: AnyWebhookEvent) => {
        running++;
        mostRunning = Math.max(mostRunning, running);
        await new Promise<void>((resolve) => clock.setTimer(resolve, HANDLER_MS));
        running--;
        handled.set(event.id, (handled.get(event.id) ?? 0) + 1);
        handledCount++;
        if (handledCount % 2500 === 0) peakHeap = Math.max(peakHeap, retainedHeap());
      };
      receiver.on(['message.sent', 'message.delivered', 'sms.completed'], handle);
      const middleware = webhookMiddleware(receiver);
      const server = createServer((req, res) => middleware(req, res, () => res.writeHead(500).end()));
      // A burst's connections arrive together: a listen backlog above Node's 511, so none waits for a
      // SYN retry; and idle connections kept longer than a loaded machine takes between two uses, so the
      // emulator never reuses one the server is closing (ECONNRESET).
      server.keepAliveTimeout = 120_000;
      await new Promise<void>((resolve) =>
        server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve),
      );
      const app = {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        close: () => closeServer(server),
      };

      const attempts = new Map<string, number>();
      const delivered = new Set<string>();
      const statuses = new Map<number | null, number>();
      const errors = new Set<string | null>();
      const emulator = createEmulator({
        allowInsecureLoopback: true,
        clock,
        rateLimit: false,
        webhookSecret: SECRET,
        // Real time, per request: 2,001 requests at once on a shared CI machine can take a while.
        deliveryTimeoutMs: 120_000,
        onAttempt: (a) => {
          attempts.set(a.eventId, a.attempt);
          statuses.set(a.statusCode, (statuses.get(a.statusCode) ?? 0) + 1);
          if (a.statusCode === null && errors.size < 5) errors.add(a.error);
          if (!a.delivered) return;
          delivered.add(a.eventId);
          accepted++;
          // Accepted and not yet handled: what the receiver holds in memory for this burst.
          mostBacklog = Math.max(mostBacklog, accepted - handledCount);
        },
      });
      try {
        const baseUrl = await emulator.listen();
        const client = createClient({ apiKey: 'sk_test_bursts', baseUrl, allowInsecureLoopback: true });
        await client.createWebhook({
          url: app.url,
          events: ['message.sent', 'message.delivered', 'sms.completed'],
        });
        const emitted: string[] = [];
        for (let i = 0; i < SENDS; i++) {
          // All at the same virtual instant; a send's 2,001 attempts at once on the wire.
          const send = emulator.simulateSend({ recipients: RECIPIENTS });
          for (const e of send.events) emitted.push(e.id);
          await clock.advance(0);
        }
        await clock.runAll(1_000_000);
        peakHeap = Math.max(peakHeap, retainedHeap());

        const twice = [...handled].filter(([, n]) => n > 1);
        const missing = emitted.filter((id) => !handled.has(id));
        report('bursts', {
          deliveries: emitted.length,
          maxConcurrency: MAX_CONCURRENCY,
          maxQueue: MAX_QUEUE,
          attempts: sumOf(statuses),
          statuses: JSON.stringify(Object.fromEntries(statuses)),
          errors: JSON.stringify([...errors]),
          overloaded: refusals.get('overloaded') ?? 0,
          beforeBody: entryRefusals,
          mostRunning,
          mostBacklog,
          mostAttempts: Math.max(...attempts.values()),
          retainedHeapGrowthMB: Math.round((peakHeap - baseline) / 1024 / 1024),
          virtualHours: ((clock.now() - Date.UTC(2026, 0, 1)) / 3_600_000).toFixed(1),
          ms: Math.round(performance.now() - started),
        });
        expect(mostRunning).toBeLessThanOrEqual(MAX_CONCURRENCY);
        expect(mostRunning).toBe(MAX_CONCURRENCY); // the bound was reached, not merely respected
        expect(mostBacklog).toBeLessThanOrEqual(MAX_CONCURRENCY + MAX_QUEUE);
        expect((peakHeap - baseline) / 1024 / 1024).toBeLessThan(RETAINED_HEAP_BOUND_MB);
        // The burst was refused in part, mostly before its bodies were read …
        expect(refusals.get('overloaded') ?? 0).toBeGreaterThan(emitted.length / 2);
        expect(entryRefusals).toBeGreaterThan((refusals.get('overloaded') ?? 0) / 2);
        expect([...refusals.keys()]).toEqual(['overloaded']);
        // … and in the end every event was delivered and handled exactly once, within the six attempts.
        expect(twice).toEqual([]);
        expect(missing).toEqual([]);
        expect(handled.size).toBe(emitted.length);
        expect(delivered.size).toBe(emitted.length);
        expect([...statuses.keys()].sort()).toEqual([200, 503]);
      } finally {
        await emulator.close();
        await app.close();
      }
    },
    scaled(300_000, 900_000),
  );
});

/** Heap in use after a full collection (V8's `gc`, exposed for this test by its public flag API). */
function retainedHeap(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed;
}

function sumOf(counts: Map<unknown, number>): number {
  let sum = 0;
  for (const n of counts.values()) sum += n;
  return sum;
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
