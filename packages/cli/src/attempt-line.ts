import type { AttemptReport } from '@sms-webhooks/emulator';
import { appErrorCode, attemptHint } from './attempt-hint.js';

const clock = (ms: number) => new Date(ms).toTimeString().slice(0, 8);

/**
 * One delivery as `listen` streams it:
 * `12:00:01  message.delivered  evt_…  attempt 1  → 200 (12 ms)` and, on a failure, the app's error code
 * from its JSON answer (`→ 400 signature_mismatch`) and the next retry.
 */
export function attemptLine(a: AttemptReport): string {
  const code = a.delivered ? undefined : appErrorCode(a.responseBody);
  const answer =
    a.statusCode !== null ? `${a.statusCode}${code ? ` ${code}` : ''}` : (a.error ?? 'no answer');
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
    code: a.delivered ? null : (appErrorCode(a.responseBody) ?? null),
    error: a.error,
    delivered: a.delivered,
    latency_ms: a.durationMs,
    next_attempt_at: a.nextAttemptAt === null ? null : new Date(a.nextAttemptAt).toISOString(),
    webhook_id: a.webhookId,
    hint: a.delivered ? null : (attemptHint(a) ?? null),
  });
}

/** `  ↳ hint`, once per distinct hint a run: a retry that meets the same refusal needs no second one. */
export function hintPrinter(): (a: AttemptReport) => string | undefined {
  const said = new Set<string>();
  return (a) => {
    if (a.delivered) return undefined;
    const hint = attemptHint(a);
    if (hint === undefined || said.has(hint)) return undefined;
    said.add(hint);
    return `  ↳ ${hint}`;
  };
}
