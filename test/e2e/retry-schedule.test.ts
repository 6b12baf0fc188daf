import { verifyWebhook } from '@sms-webhooks/core';
import { VirtualClock } from '@sms-webhooks/core/testing';
import type { AttemptReport, Emulator } from '@sms-webhooks/emulator';
import { startEmulator } from './setup.js';
import { recordingTarget, type Target } from './targets.js';

// The schedule's logic runs on a VirtualClock: each retry is due exactly its wait after the attempt
// before it, and `clock.advance` fires it (waiting for the delivery, a real HTTP exchange, before the
// next timer), so no test depends on how fast a loaded machine runs timers.

let emulator: Emulator | undefined;
let target: Target | undefined;

afterEach(async () => {
  await emulator?.close();
  await target?.close();
  emulator = undefined;
  target = undefined;
});

const MIN = 60_000;

async function setup(respond: Parameters<typeof recordingTarget>[0], options = {}) {
  // A whole second, so the signatures' `t` (seconds) reads as the attempts' exact times.
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const recorder = await recordingTarget(respond);
  target = recorder;
  const started = await startEmulator({ clock, ...options });
  emulator = started.emulator;
  const webhook = await started.client.createWebhook({ url: recorder.url, events: ['message.sent'] });
  return { ...started, clock, recorder, webhook };
}

const attemptOf = (a: { headers: Record<string, unknown> }) =>
  Number(a.headers['x-service-delivery-attempt']);

describe('retry schedule', () => {
  it('a failing receiver sees attempts 1, 2, 3 with the same event id, exactly 1 min and 5 min apart', async () => {
    const reports: AttemptReport[] = [];
    const { recorder, webhook, client, clock } = await setup((_a, _i, res) => res.writeHead(500).end(), {
      onAttempt: (a: AttemptReport) => void reports.push(a),
    });
    const t0 = clock.now();
    const [event] = emulator!.emit('message.sent');
    await clock.advance(0);
    expect(recorder.arrivals.map(attemptOf)).toEqual([1]);
    // Not a millisecond early.
    await clock.advance(MIN - 1);
    expect(recorder.arrivals.map(attemptOf)).toEqual([1]);
    await clock.advance(1);
    expect(recorder.arrivals.map(attemptOf)).toEqual([1, 2]);
    await clock.advance('5m');
    const [a1, a2, a3] = recorder.arrivals as [
      (typeof recorder.arrivals)[0],
      (typeof recorder.arrivals)[0],
      (typeof recorder.arrivals)[0],
    ];
    expect([a1, a2, a3].map(attemptOf)).toEqual([1, 2, 3]);
    expect([a1, a2, a3].map((a) => a.headers['x-service-event-id'])).toEqual([
      event!.id,
      event!.id,
      event!.id,
    ]);
    expect(new Set([a1, a2, a3].map((a) => a.body)).size).toBe(1);
    for (const a of [a1, a2, a3]) {
      // Each attempt is signed afresh with the webhook's secret, at the emulator's (virtual) time.
      const t = Number(/t=(\d+)/.exec(String(a.headers['x-service-signature']))![1]);
      expect(verifyWebhook(a.body, a.headers, { secret: webhook.secret, now: t }).id).toBe(event!.id);
    }
    expect(
      [a1, a2, a3].map(
        (a) => Number(/t=(\d+)/.exec(String(a.headers['x-service-signature']))![1]) * 1000 - t0,
      ),
    ).toEqual([0, MIN, 6 * MIN]);
    expect(reports.map((r) => [r.attempt, r.startedAt - t0, r.nextAttemptAt! - t0])).toEqual([
      [1, 0, MIN],
      [2, MIN, 6 * MIN],
      [3, 6 * MIN, 36 * MIN],
    ]);
    const [record] = (await client.listDeliveries(webhook.id)).data;
    expect(record).toMatchObject({
      status: 'pending',
      attempts: 3,
      event_id: event!.id,
      last_status_code: 500,
      last_error: 'HTTP 500',
      delivered_at: null,
      next_attempt_at: new Date(t0 + 36 * MIN).toISOString(),
    });
  });

  it('stops after 6 attempts (numbered 1 to 6, 1 min … 12 h apart) and marks the record failed', async () => {
    const reports: AttemptReport[] = [];
    const { recorder, webhook, clock } = await setup((_a, _i, res) => res.writeHead(503).end('down'), {
      onAttempt: (a: AttemptReport) => void reports.push(a),
    });
    const t0 = clock.now();
    emulator!.emit('message.sent');
    await clock.runAll();
    // Nothing is left to fire: no seventh attempt can come.
    expect(clock.pendingTimers).toBe(0);
    expect(emulator!.pendingDeliveries).toBe(0);
    expect(recorder.arrivals.map(attemptOf)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(reports.map((r) => (r.startedAt - t0) / MIN)).toEqual([0, 1, 6, 36, 156, 876]);
    expect(new Set(recorder.arrivals.map((a) => a.headers['x-service-event-id'])).size).toBe(1);
    expect(emulator!.deliveries(webhook.id)).toEqual([
      expect.objectContaining({
        status: 'failed',
        attempts: 6,
        last_status_code: 503,
        next_attempt_at: null,
        last_error: 'HTTP 503: down',
      }),
    ]);
  });

  it('counts a 3xx as a failure and does not follow the redirect', async () => {
    const { recorder, webhook, clock } = await setup((a, i, res) => {
      if (i === 0) res.writeHead(302, { location: `http://${a.headers.host}/moved` }).end();
      else res.writeHead(200).end();
    });
    emulator!.emit('message.sent');
    await clock.runAll();
    expect(recorder.arrivals.map(attemptOf)).toEqual([1, 2]);
    expect(recorder.arrivals.every((a) => a.headers['x-service-event-id'] !== undefined)).toBe(true);
    const [record] = emulator!.deliveries(webhook.id);
    expect(record).toMatchObject({
      status: 'pending',
      delivered_at: expect.any(String),
      attempts: 2,
      last_status_code: 200,
    });
  });

  it('records a redirect as last_status_code 3xx with a clear last_error', async () => {
    const { webhook, clock } = await setup((_a, _i, res) =>
      res.writeHead(301, { location: 'https://example.com/' }).end(),
    );
    emulator!.emit('message.sent');
    await clock.advance(0);
    expect(emulator!.deliveries(webhook.id)[0]).toMatchObject({ attempts: 1, last_status_code: 301 });
    expect(emulator!.deliveries(webhook.id)[0]).toMatchObject({
      status: 'pending',
      last_error: expect.stringMatching(/HTTP 301 \(redirects are not followed\)/),
    });
  });

  it('times out a receiver that does not answer, then retries', async () => {
    const { recorder, webhook, clock } = await setup(
      (_a, i, res) => {
        if (i > 0) res.writeHead(204).end();
        // The first request is left hanging.
      },
      // The time-out is real time (a socket's): 1 s, so the answered retry, an HTTP exchange in this
      // process, completes within it on a loaded machine too.
      { deliveryTimeoutMs: 1000 },
    );
    emulator!.emit('message.sent');
    await clock.runAll();
    expect(recorder.arrivals.map(attemptOf)).toEqual([1, 2]);
    expect(emulator!.deliveries(webhook.id)[0]).toMatchObject({
      status: 'pending',
      delivered_at: expect.any(String),
      attempts: 2,
      last_status_code: 204,
    });
  });

  it('records a refused connection with no status code and schedules the next attempt', async () => {
    const clock = new VirtualClock();
    const started = await startEmulator({ clock });
    emulator = started.emulator;
    const webhook = await started.client.createWebhook({
      url: 'http://127.0.0.1:1/webhooks',
      events: ['sms.completed'],
    });
    emulator.emit('sms.completed');
    await clock.advance(0);
    expect(emulator.deliveries(webhook.id)[0]).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_status_code: null,
      last_error: expect.stringMatching(/ECONNREFUSED/),
      next_attempt_at: new Date(clock.now() + MIN).toISOString(),
    });
  });

  it('deleting the webhook cancels its scheduled retries', async () => {
    const { recorder, webhook, client, clock } = await setup((_a, _i, res) => res.writeHead(500).end());
    emulator!.emit('message.sent');
    await clock.advance(0);
    expect(recorder.arrivals).toHaveLength(1);
    expect(emulator!.pendingDeliveries).toBe(1);
    await client.deleteWebhook(webhook.id);
    expect(emulator!.pendingDeliveries).toBe(0);
    expect(clock.pendingTimers).toBe(0);
    expect(emulator!.deliveries(webhook.id)[0]).toMatchObject({ status: 'failed', next_attempt_at: null });
    // Past the time the whole schedule would have taken, the retry has not come.
    await clock.advance('1d');
    expect(recorder.arrivals).toHaveLength(1);
  });

  it('sends a webhook only the event types it lists, with test set from the key mode', async () => {
    const recorder = await recordingTarget((_a, _i, res) => res.writeHead(200).end());
    target = recorder;
    const live = await startEmulator({}, 'sk_live_e2e');
    emulator = live.emulator;
    await live.client.createWebhook({ url: recorder.url, events: ['message.failed'] });
    emulator.simulateSend({ recipients: 3, fail: ['+15555550101'] });
    await emulator.waitForIdle(5000);
    expect(recorder.arrivals.map((a) => JSON.parse(a.body))).toEqual([
      expect.objectContaining({
        type: 'message.failed',
        test: false,
        data: expect.objectContaining({ to: '+15555550101', status: 'failed' }),
      }),
    ]);
  });
});
