import type { AttemptReport } from '@sms-webhooks/emulator';
import { InspectorState, MAX_ATTEMPTS_KEPT } from '../src/inspector/inspector-state.js';

function report(
  eventId: string,
  attempt: number,
  status: number | null,
  responseBody: string,
): AttemptReport {
  return {
    webhookId: 'wh_1',
    url: 'http://app.test/webhooks/sms',
    eventId,
    eventType: 'message.delivered',
    attempt,
    statusCode: status,
    error: status === null ? 'connect ECONNREFUSED' : null,
    delivered: status !== null && status < 300,
    responseBody,
    requestHeaders: {},
    requestBody: '{}',
    nextAttemptAt: null,
    startedAt: 0,
    durationMs: 1,
  };
}

describe('InspectorState', () => {
  it("names what the app's receiver said in its answer: duplicate, ignored, stale, or delivered", () => {
    const state = new InspectorState(1);
    const bodies: [number | null, string, string][] = [
      [200, '{"received":true}', 'delivered'],
      [200, '{"received":true,"duplicate":true}', 'duplicate'],
      [200, '{"received":true,"ignored":true}', 'ignored'],
      [200, '{"received":true,"stale":true}', 'stale'],
      [200, 'OK', 'delivered'],
      [200, '{"received":true,"duplicate":"yes"}', 'delivered'],
      [500, '{"error":{"code":"handler_failed"}}', 'failed'],
      [null, '', 'failed'],
    ];
    bodies.forEach(([status, body], i) => {
      state.record(report('evt_outcomes', i + 1, status, body));
    });
    expect(state.list()[0]!.attempts.map((a) => a.outcome)).toEqual(bodies.map(([, , outcome]) => outcome));
  });

  it('keeps the newest attempts of an event and counts them all', () => {
    const state = new InspectorState(1);
    for (let n = 1; n <= MAX_ATTEMPTS_KEPT + 5; n++) state.record(report('evt_resent', n, 200, '{}'));
    const [event] = state.list();
    expect(event!.attempts).toHaveLength(MAX_ATTEMPTS_KEPT);
    expect(event!.attempts[0]!.attempt).toBe(6);
    expect(event!.attempt_count).toBe(MAX_ATTEMPTS_KEPT + 5);
  });

  it('keeps the newest events, dropping the oldest', () => {
    const state = new InspectorState(1, 2);
    for (const id of ['evt_a', 'evt_b', 'evt_c']) state.record(report(id, 1, 200, '{}'));
    state.record(report('evt_b', 2, 200, '{}'));
    expect(state.list().map((e) => e.id)).toEqual(['evt_c', 'evt_b']);
  });
});
