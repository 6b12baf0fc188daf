import { verifyWebhook } from '@sms-webhooks/core';
import type { AttemptReport, Emulator } from '@sms-webhooks/emulator';
import { startEmulator } from './setup.js';
import { recordingTarget, type Target } from './targets.js';
import { EARLY_MS, expectOnSchedule, scaledWaits, watchEventLoop } from './tolerance.js';

let emulator: Emulator | undefined;
let target: Target | undefined;

afterEach(async () => {
  await emulator?.close();
  await target?.close();
  emulator = undefined;
  target = undefined;
});

async function setup(timeScale: number, respond: Parameters<typeof recordingTarget>[0], options = {}) {
  const recorder = await recordingTarget(respond);
  target = recorder;
  const started = await startEmulator({ timeScale, ...options });
  emulator = started.emulator;
  const webhook = await started.client.createWebhook({ url: recorder.url, events: ['message.sent'] });
  return { ...started, recorder, webhook };
}

const attemptOf = (a: { headers: Record<string, unknown> }) =>
  Number(a.headers['x-service-delivery-attempt']);

describe('retry schedule', () => {
  it('a failing receiver sees attempts 1, 2, 3 with the same event id at 1 min and 5 min, scaled by 1/1000', async () => {
    const reports: AttemptReport[] = [];
    const { recorder, webhook, client } = await setup(1 / 1000, (_a, _i, res) => res.writeHead(500).end(), {
      onAttempt: (a: AttemptReport) => void reports.push(a),
    });
    const loop = watchEventLoop();
    const [event] = emulator!.emit('message.sent');
    // The third attempt's report: its answer is recorded and the fourth scheduled.
    await vi.waitFor(() => expect(reports.length).toBeGreaterThanOrEqual(3), { timeout: 5000, interval: 5 });
    const stallMs = loop.stop();
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
      // Each attempt is signed afresh with the webhook's secret and verifies.
      expect(verifyWebhook(a.body, a.headers, { secret: webhook.secret }).id).toBe(event!.id);
    }
    // The receiver never sees a retry early; how late it comes is timed by the sender (expectOnSchedule).
    const [wait1, wait2] = scaledWaits(1 / 1000);
    expect(a2.at - a1.at).toBeGreaterThanOrEqual(wait1 - EARLY_MS);
    expect(a3.at - a2.at).toBeGreaterThanOrEqual(wait2 - EARLY_MS);
    expectOnSchedule(reports, [wait1, wait2], stallMs);

    const [record] = (await client.listDeliveries(webhook.id)).data;
    expect(Date.now(), 'the record was read before the fourth attempt was due').toBeLessThan(
      reports[2]!.nextAttemptAt!,
    );
    expect(record).toMatchObject({
      status: 'pending',
      attempts: 3,
      event_id: event!.id,
      last_status_code: 500,
      last_error: 'HTTP 500',
      delivered_at: null,
      next_attempt_at: expect.any(String),
    });
    // The third wait is 30 min, scaled: 1.8 s after the third attempt ended.
    const third = reports[2]!;
    expect(Date.parse(record!.next_attempt_at!)).toBe(third.nextAttemptAt);
    expect(Math.abs(third.nextAttemptAt! - (third.startedAt + third.durationMs) - 1800)).toBeLessThanOrEqual(
      EARLY_MS,
    );
  });

  it('stops after 6 attempts (numbered 1 to 6) and marks the record failed', async () => {
    const { recorder, webhook } = await setup(1 / 100_000, (_a, _i, res) => res.writeHead(503).end('down'));
    emulator!.emit('message.sent');
    await emulator!.waitForIdle(10_000);
    // Longer than the whole scaled schedule again: no seventh attempt comes.
    await new Promise((r) => setTimeout(r, 600));
    expect(recorder.arrivals.map(attemptOf)).toEqual([1, 2, 3, 4, 5, 6]);
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
    const { recorder, webhook } = await setup(1 / 100_000, (a, i, res) => {
      if (i === 0) res.writeHead(302, { location: `http://${a.headers.host}/moved` }).end();
      else res.writeHead(200).end();
    });
    emulator!.emit('message.sent');
    await emulator!.waitForIdle(10_000);
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
    const { webhook } = await setup(1, (_a, _i, res) =>
      res.writeHead(301, { location: 'https://example.com/' }).end(),
    );
    emulator!.emit('message.sent');
    await vi.waitFor(() => expect(emulator!.deliveries(webhook.id)[0]?.attempts).toBe(1));
    await vi.waitFor(() => expect(emulator!.deliveries(webhook.id)[0]?.last_status_code).toBe(301));
    expect(emulator!.deliveries(webhook.id)[0]).toMatchObject({
      status: 'pending',
      last_error: expect.stringMatching(/HTTP 301 \(redirects are not followed\)/),
    });
  });

  it('times out a receiver that does not answer, then retries', async () => {
    const { recorder, webhook } = await setup(
      1 / 100_000,
      (_a, i, res) => {
        if (i > 0) res.writeHead(204).end();
        // The first request is left hanging.
      },
      // 1 s: the answered retry, an HTTP exchange in this process, completes within it on a loaded machine
      // too (150 ms could run out and time it out as well).
      { deliveryTimeoutMs: 1000 },
    );
    emulator!.emit('message.sent');
    await emulator!.waitForIdle(10_000);
    expect(recorder.arrivals.map(attemptOf)).toEqual([1, 2]);
    expect(emulator!.deliveries(webhook.id)[0]).toMatchObject({
      status: 'pending',
      delivered_at: expect.any(String),
      attempts: 2,
      last_status_code: 204,
    });
  });

  it('records a refused connection with no status code and schedules the next attempt', async () => {
    const started = await startEmulator();
    emulator = started.emulator;
    const webhook = await started.client.createWebhook({
      url: 'http://127.0.0.1:1/webhooks',
      events: ['sms.completed'],
    });
    emulator.emit('sms.completed');
    await vi.waitFor(() => expect(emulator!.deliveries(webhook.id)[0]?.last_error).toBeTruthy());
    expect(emulator.deliveries(webhook.id)[0]).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_status_code: null,
      last_error: expect.stringMatching(/ECONNREFUSED/),
      next_attempt_at: expect.any(String),
    });
  });

  it('deleting the webhook cancels its scheduled retries', async () => {
    // At 1/30 the retry is due 2 s after the first attempt: the deletion, an HTTP call, comes first even
    // on a loaded machine (at 1/1000 the 60 ms wait could run out before it did).
    const { recorder, webhook, client } = await setup(1 / 30, (_a, _i, res) => res.writeHead(500).end());
    emulator!.emit('message.sent');
    await vi.waitFor(() => expect(recorder.arrivals).toHaveLength(1));
    await vi.waitFor(() => expect(emulator!.pendingDeliveries).toBe(1));
    const due = Date.parse(emulator!.deliveries(webhook.id)[0]!.next_attempt_at!);
    await client.deleteWebhook(webhook.id);
    expect(Date.now()).toBeLessThan(due);
    expect(emulator!.pendingDeliveries).toBe(0);
    expect(emulator!.deliveries(webhook.id)[0]).toMatchObject({ status: 'failed', next_attempt_at: null });
    // Past the time the retry was due, it has not come.
    await new Promise((r) => setTimeout(r, due - Date.now() + 150));
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
