import type { AttemptReport } from '@sms-webhooks/emulator';

const clock = (ms: number) => new Date(ms).toTimeString().slice(0, 8);

/**
 * One delivery as `listen` streams it:
 * `12:00:01  message.delivered  evt_…  attempt 1  → 200 (12 ms)` and, on a failure, the next retry.
 */
export function attemptLine(a: AttemptReport): string {
  const answer = a.statusCode !== null ? String(a.statusCode) : (a.error ?? 'no answer');
  const next = a.delivered
    ? ''
    : a.nextAttemptAt !== null
      ? `  next retry ${clock(a.nextAttemptAt)} (attempt ${a.attempt + 1})`
      : '  no more retries';
  return `${clock(a.startedAt)}  ${a.eventType.padEnd(17)}  ${a.eventId}  attempt ${a.attempt}  → ${answer} (${a.durationMs} ms)${next}`;
}

/** The same as a JSON line (`--json`). */
export function attemptJson(a: AttemptReport): string {
  return JSON.stringify({
    time: new Date(a.startedAt).toISOString(),
    type: a.eventType,
    event_id: a.eventId,
    attempt: a.attempt,
    status: a.statusCode,
    error: a.error,
    delivered: a.delivered,
    latency_ms: a.durationMs,
    next_attempt_at: a.nextAttemptAt === null ? null : new Date(a.nextAttemptAt).toISOString(),
    webhook_id: a.webhookId,
  });
}
