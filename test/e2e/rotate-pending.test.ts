import { setTimeout as tick } from 'node:timers/promises';
import { type Client, createClient } from '@sms-webhooks/client';
import { createReceiver, MemoryStore, type Receiver } from '@sms-webhooks/core';
import { VirtualClock } from '@sms-webhooks/core/testing';
import { createEmulator, type Emulator } from '@sms-webhooks/emulator';
import { auditWebhook, retireWebhook, rotateWebhook } from '@sms-webhooks/ops';
import { captureLogger } from '@sms-webhooks/test-helpers';
import { type SwappableApp, swappableApp } from './ops-apps.js';

// Rotation meets retries: the emulator plays the service's retry schedule on a VirtualClock, which a
// pump moves on while rotation waits on the same clock.

let emulator: Emulator;
let app: SwappableApp | undefined;
afterEach(async () => {
  await emulator?.close();
  await app?.close();
  app = undefined;
});

/** Until the event's first attempt through `webhookId` has its answer recorded (a retry stays scheduled). */
async function answered(webhookId: string, eventId: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (emulator.deliveries(webhookId).some((d) => d.event_id === eventId && d.last_status_code !== null))
      return;
    await tick(10);
  }
  throw new Error(`no answer recorded for ${eventId}`);
}

const EVENTS = ['message.delivered', 'message.failed', 'webhook.test'] as const;

async function world() {
  const clock = new VirtualClock();
  emulator = createEmulator({ allowInsecureLoopback: true, clock });
  const client: Client = createClient({
    apiKey: 'sk_test_rotate',
    baseUrl: await emulator.listen(),
    allowInsecureLoopback: true,
  });
  app = await swappableApp(
    createReceiver({ secret: 'whsec_placeholder_0123456789abcdef', logger: captureLogger() }),
  );
  const old = await client.createWebhook({ url: app.url, events: [...EVENTS] });
  const store = new MemoryStore({ now: () => clock.now() });
  const handled: string[] = [];
  let databaseDown = false;
  const receiverFor = (secret: string | string[]): Receiver =>
    createReceiver({ secret, store, clock, respond: 'after-handlers', logger: captureLogger() }).on(
      'message.delivered',
      (event) => {
        if (databaseDown) throw new Error('database is down');
        handled.push(event.id);
      },
    );
  app.use(receiverFor(old.secret));
  /** Moves the virtual clock on until `work` settles, a second at a time. */
  async function pumped<T>(work: Promise<T>): Promise<T> {
    let done = false;
    const settled = work.finally(() => {
      done = true;
    });
    while (!done) {
      await clock.advance(1000);
      await tick(1);
    }
    return settled;
  }
  return {
    clock,
    client,
    old,
    store,
    handled,
    receiverFor,
    pumped,
    setDatabaseDown: (down: boolean) => {
      databaseDown = down;
    },
  };
}

describe('rotation and pending retries', () => {
  it('keeps the old webhook until an event it is retrying is delivered, so nothing is lost', async () => {
    const w = await world();
    // The database was down a minute: the event was answered 500 and its retry is scheduled on the old webhook.
    w.setDatabaseDown(true);
    const event = emulator.emit('message.delivered')[0]!.id;
    await answered(w.old.id, event);
    expect(emulator.deliveries(w.old.id).find((d) => d.event_id === event)).toMatchObject({
      last_status_code: 500,
      next_attempt_at: expect.any(String),
    });
    w.setDatabaseDown(false);

    const waited: string[][] = [];
    const result = await w.pumped(
      rotateWebhook(w.client, {
        webhookId: w.old.id,
        retryMs: 5000,
        answerTimeoutMs: 5000,
        clock: w.clock,
        handOver: (secret) => app!.use(w.receiverFor([w.old.secret, secret])),
        onWaiting: (pending) => waited.push(pending.map((p) => p.eventId)),
      }),
    );
    expect(result).toMatchObject({ oldDeleted: true, waitingFor: [] });
    expect(waited[0]).toEqual([event]);
    await w.clock.runAll();
    await emulator.waitForIdle(5000);
    // Delivered by the old webhook's retry before it was deleted, and handled once.
    expect(w.handled).toEqual([event]);
    expect(emulator.deliveries(w.old.id).find((d) => d.event_id === event)?.delivered_at).not.toBeNull();
    const audit = await auditWebhook({
      client: w.client,
      webhookId: [w.old.id, result.replacement.id],
      store: w.store,
      now: () => w.clock.now(),
    });
    expect(audit.counts).toMatchObject({ missed: 0, unfinished: 0 });
  });

  it('past drainTimeoutMs keeps both webhooks and names the event; retireWebhook finishes later', async () => {
    const w = await world();
    w.setDatabaseDown(true);
    const event = emulator.emit('message.delivered')[0]!.id;
    await answered(w.old.id, event);
    const result = await w.pumped(
      rotateWebhook(w.client, {
        webhookId: w.old.id,
        retryMs: 5000,
        answerTimeoutMs: 5000,
        drainTimeoutMs: 0,
        clock: w.clock,
        handOver: (secret) => app!.use(w.receiverFor([w.old.secret, secret])),
      }),
    );
    expect(result).toMatchObject({
      oldDeleted: false,
      waitingFor: [{ eventId: event, eventType: 'message.delivered', lastStatusCode: 500 }],
    });
    expect(emulator.webhooks().map((x) => x.id)).toContain(w.old.id);
    // Still owed: retire checks once and deletes nothing.
    await expect(
      retireWebhook(w.client, { webhookId: w.old.id, replacementId: result.replacement.id }),
    ).resolves.toMatchObject({ deleted: false, waitingFor: [{ eventId: event }] });
    // The database is back; the next attempt (1 min later) is accepted, and retire deletes the old webhook.
    w.setDatabaseDown(false);
    const retired = await w.pumped(
      retireWebhook(w.client, {
        webhookId: w.old.id,
        replacementId: result.replacement.id,
        timeoutMs: 10 * 60_000,
        pollMs: 5000,
        clock: w.clock,
      }),
    );
    expect(retired).toEqual({ webhookId: w.old.id, deleted: true, waitingFor: [] });
    expect(emulator.webhooks().map((x) => x.id)).toEqual([result.replacement.id]);
    expect(w.handled).toEqual([event]);
  });

  it('sends no service test delivery the app refuses: it probes the app with the new secret first', async () => {
    const w = await world();
    let deploy: (() => void) | undefined;
    const probes: string[] = [];
    const result = await w.pumped(
      rotateWebhook(w.client, {
        webhookId: w.old.id,
        retryMs: 5000,
        answerTimeoutMs: 5000,
        clock: w.clock,
        // The secret goes to a secret manager; the app picks it up a few probes later (a redeploy).
        handOver: (secret) => {
          deploy = () => app!.use(w.receiverFor([w.old.secret, secret]));
        },
        onProbe: (p) => {
          probes.push(`${p.outcome} ${p.error}`);
          if (probes.length === 2) deploy!();
        },
      }),
    );
    expect(probes).toEqual([
      'refused HTTP 400 signature_mismatch',
      'refused HTTP 400 signature_mismatch',
      'accepted null',
    ]);
    expect(result).toMatchObject({ oldDeleted: true, smokeTests: 1, probes: 3 });
    const tests = emulator.deliveries(result.replacement.id).filter((d) => d.test);
    expect(tests).toHaveLength(1);
    expect(tests.map((d) => d.last_status_code)).toEqual([200]);
    expect(tests[0]!.next_attempt_at).toBeNull();
  });
});
