import { type AttemptReport, RETRY_WAITS_MS } from '@sms-webhooks/emulator';
import { appErrorCode, attemptHint } from '../attempt-hint.js';

/** One attempt as the inspector page shows it. */
export interface InspectedAttempt {
  attempt: number;
  started_at: string;
  duration_ms: number;
  status: number | null;
  /** The app's error code from its JSON answer. */
  code: string | null;
  error: string | null;
  delivered: boolean;
  /**
   * What the answer meant: `delivered`, or what the app's receiver said in its 2xx body (`duplicate`: it had
   * handled the event already; `ignored`: no handler for the type; `stale`: an older status), or `failed`.
   */
  outcome: AttemptOutcome;
  response_body: string;
  request_headers: Record<string, string>;
  next_attempt_at: string | null;
  hint: string | null;
}

export type AttemptOutcome = 'delivered' | 'duplicate' | 'ignored' | 'stale' | 'failed';

export interface InspectedEvent {
  id: string;
  type: string;
  webhook_id: string;
  url: string;
  /** The body every attempt carries. */
  body: string;
  /** The newest attempts, at most MAX_ATTEMPTS_KEPT (resends add one each). */
  attempts: InspectedAttempt[];
  /** Every attempt so far, those no longer kept included. */
  attempt_count: number;
  /** The waits still to come if every attempt fails, in ms (the spec's schedule from the next attempt on). */
  schedule_left_ms: number[];
}

/** Events kept; the oldest goes first. */
export const MAX_EVENTS = 200;
/** Attempts kept per event: a resend loop in a long session must not grow the page without end. */
export const MAX_ATTEMPTS_KEPT = 20;

/** The outcome the receiver's answer body names (`{"received":true,"duplicate":true}` and the like). */
function outcomeOf(report: AttemptReport): AttemptOutcome {
  if (!report.delivered) return 'failed';
  try {
    const body = JSON.parse(report.responseBody) as Record<string, unknown>;
    for (const flag of ['duplicate', 'ignored', 'stale'] as const) if (body?.[flag] === true) return flag;
  } catch {}
  return 'delivered';
}

/** What the inspector knows: the newest events and their attempts, pushed to each page as they change. */
export class InspectorState {
  private readonly events = new Map<string, InspectedEvent>();
  private readonly listeners = new Set<(event: InspectedEvent) => void>();

  constructor(
    private readonly timeScale: number,
    readonly maxEvents = MAX_EVENTS,
  ) {}

  record(report: AttemptReport): void {
    const key = `${report.webhookId} ${report.eventId}`;
    let event = this.events.get(key);
    if (!event) {
      event = {
        id: report.eventId,
        type: report.eventType,
        webhook_id: report.webhookId,
        url: report.url,
        body: report.requestBody,
        attempts: [],
        attempt_count: 0,
        schedule_left_ms: [],
      };
      this.events.set(key, event);
      if (this.events.size > this.maxEvents) this.events.delete(this.events.keys().next().value!);
    }
    event.attempts.push({
      attempt: report.attempt,
      started_at: new Date(report.startedAt).toISOString(),
      duration_ms: report.durationMs,
      status: report.statusCode,
      code: report.delivered ? null : (appErrorCode(report.responseBody) ?? null),
      error: report.error,
      delivered: report.delivered,
      outcome: outcomeOf(report),
      response_body: report.responseBody,
      request_headers: report.requestHeaders ?? {},
      next_attempt_at: report.nextAttemptAt === null ? null : new Date(report.nextAttemptAt).toISOString(),
      hint: report.delivered ? null : (attemptHint(report, 'page') ?? null),
    });
    event.attempt_count += 1;
    if (event.attempts.length > MAX_ATTEMPTS_KEPT)
      event.attempts.splice(0, event.attempts.length - MAX_ATTEMPTS_KEPT);
    event.schedule_left_ms =
      report.nextAttemptAt === null
        ? []
        : RETRY_WAITS_MS.slice(report.attempt).map((ms) => ms * this.timeScale);
    for (const listener of this.listeners) listener(event);
  }

  /** Newest first. */
  list(): InspectedEvent[] {
    return [...this.events.values()].reverse();
  }

  subscribe(listener: (event: InspectedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
