import { type AnyWebhookEvent, signPayload } from '@sms-webhooks/core';
import { randomId } from './clock.js';
import { type AttemptReport, MAX_ATTEMPTS, RETRY_WAITS_MS, type ResolvedEmulatorOptions } from './options.js';
import { postDelivery } from './post-delivery.js';
import type { WebhookDelivery } from './types.js';
import type { WebhookEntry } from './webhook-registry.js';

interface DeliveryJob {
  record: WebhookDelivery;
  entry: WebhookEntry;
  body: string;
  /** Cancels the scheduled retry. */
  cancelTimer: (() => void) | undefined;
}

/** Attempt numbers remembered per (webhook, event), so a redelivery continues the count. */
const MAX_REMEMBERED_ATTEMPTS = 10_000;

/**
 * Sends each event to each subscribed webhook and retries on the spec's schedule. The body is
 * serialised once per event, so every attempt carries the same bytes; it is re-signed per attempt
 * because the signature's `t` must be fresh.
 */
export class DeliveryEngine {
  private readonly byWebhook = new Map<string, DeliveryJob[]>();
  private readonly scheduled = new Set<DeliveryJob>();
  /** Attempts running now. */
  private readonly running = new Set<DeliveryJob>();
  private inFlight = 0;
  private waiters: (() => void)[] = [];
  private readonly abort = new AbortController();
  private closed = false;
  private readonly lastAttempt = new Map<string, number>();
  private readonly listeners = new Set<(report: AttemptReport) => void>();

  constructor(private readonly options: ResolvedEmulatorOptions) {}

  /** Called after every attempt, next to `options.onAttempt`; returns the function that removes it. */
  subscribe(listener: (report: AttemptReport) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  deliver(entry: WebhookEntry, event: AnyWebhookEvent, test = false): WebhookDelivery {
    // A repeat of an event already sent to this webhook carries the next attempt number (the spec: "a repeat
    // has a higher number"), capped at the last one the spec allows.
    const previous = this.lastAttempt.get(attemptKey(entry.webhook.id, event.id)) ?? 0;
    const job = this.addJob(entry, event, Math.min(previous, MAX_ATTEMPTS - 1), test);
    this.start(job);
    return job.record;
  }

  /**
   * An event an earlier run sent (`attempts` so far): a repeat continues its count, and a retry that was
   * scheduled runs at its time (at once when that has passed).
   */
  adopt(entry: WebhookEntry, event: AnyWebhookEvent, attempts: number, nextAttemptAt: number | null): void {
    const count = Math.min(Math.max(0, Math.floor(attempts)), MAX_ATTEMPTS);
    this.rememberAttempt(entry.webhook.id, event.id, count);
    if (nextAttemptAt === null || count >= MAX_ATTEMPTS || this.closed) return;
    const job = this.addJob(entry, event, count, event.type === 'webhook.test');
    job.record.next_attempt_at = new Date(nextAttemptAt).toISOString();
    this.schedule(job, Math.max(0, nextAttemptAt - this.options.now()));
  }

  /**
   * Epoch ms of the retry scheduled for this event on this webhook, or null. An attempt still running
   * counts as a retry due now: a run stopped in the middle of it owes the app that attempt.
   */
  nextAttemptAt(webhookId: string, eventId: string): number | null {
    const of = (job: DeliveryJob) => job.entry.webhook.id === webhookId && job.record.event_id === eventId;
    for (const job of this.scheduled) {
      if (of(job)) return job.record.next_attempt_at === null ? null : Date.parse(job.record.next_attempt_at);
    }
    for (const job of this.running) if (of(job)) return this.options.now();
    return null;
  }

  /** How many attempts this event has had on this webhook (0 when none). */
  attemptsOf(webhookId: string, eventId: string): number {
    return this.lastAttempt.get(attemptKey(webhookId, eventId)) ?? 0;
  }

  private addJob(entry: WebhookEntry, event: AnyWebhookEvent, attempts: number, test: boolean): DeliveryJob {
    const record: WebhookDelivery = {
      id: randomId('whd'),
      object: 'webhook_delivery',
      status: 'pending',
      attempts,
      created_at: new Date(this.options.now()).toISOString(),
      event_id: event.id,
      event_type: event.type as WebhookDelivery['event_type'],
      delivered_at: null,
      last_error: null,
      last_status_code: null,
      next_attempt_at: null,
      test,
    };
    const job: DeliveryJob = { record, entry, body: JSON.stringify(event), cancelTimer: undefined };
    const jobs = this.byWebhook.get(entry.webhook.id) ?? [];
    jobs.push(job);
    // Old records beyond the cap are forgotten (their retries, if any, still run).
    if (jobs.length > this.options.maxDeliveriesPerWebhook) jobs.shift();
    this.byWebhook.set(entry.webhook.id, jobs);
    return job;
  }

  private schedule(job: DeliveryJob, waitMs: number): void {
    job.cancelTimer = this.options.clock.setTimer(() => {
      this.scheduled.delete(job);
      this.start(job);
    }, waitMs);
    this.scheduled.add(job);
  }

  /** Runs an attempt; a clock that tracks work (VirtualClock) waits for it before its next timer. */
  private start(job: DeliveryJob): void {
    const attempt = this.attempt(job);
    this.options.clock.track?.(attempt);
  }

  /** Newest first. */
  deliveries(webhookId: string): WebhookDelivery[] {
    return (this.byWebhook.get(webhookId) ?? []).map((j) => ({ ...j.record })).reverse();
  }

  /** Stops retries for a deleted webhook; its records stay readable. */
  cancel(webhookId: string): void {
    for (const job of this.byWebhook.get(webhookId) ?? []) {
      if (!this.scheduled.delete(job)) continue;
      job.cancelTimer?.();
      job.record.next_attempt_at = null;
      job.record.status = 'failed';
      job.record.last_error = `${job.record.last_error ?? ''} (webhook deleted, retries cancelled)`.trim();
    }
    this.notifyIfIdle();
  }

  get pending(): number {
    return this.inFlight + this.scheduled.size;
  }

  /**
   * Resolves once no attempt is running and none is scheduled. The default time-out outlasts a whole
   * retry schedule at this time scale (six attempts that each time out, and the five waits between them).
   */
  waitForIdle(timeoutMs = this.fullScheduleMs()): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        reject(
          new Error(
            `@sms-webhooks/emulator: still ${this.inFlight} attempt(s) running and ${this.scheduled.size} retry(ies) scheduled after ${timeoutMs} ms.`,
          ),
        );
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push(done);
    });
  }

  private fullScheduleMs(): number {
    const waits = RETRY_WAITS_MS.reduce((sum, ms) => sum + ms, 0) * this.options.timeScale;
    return Math.ceil(waits + MAX_ATTEMPTS * this.options.deliveryTimeoutMs + 5_000);
  }

  close(): void {
    this.closed = true;
    this.listeners.clear();
    for (const job of this.scheduled) job.cancelTimer?.();
    this.scheduled.clear();
    this.abort.abort();
    this.notifyIfIdle();
  }

  private async attempt(job: DeliveryJob): Promise<void> {
    if (this.closed) return;
    const { record, entry } = job;
    this.inFlight += 1;
    this.running.add(job);
    record.attempts += 1;
    record.next_attempt_at = null;
    this.rememberAttempt(entry.webhook.id, record.event_id, record.attempts);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'sms-webhooks-emulator/0.1',
      // Signed at the clock's time: with a VirtualClock, a receiver on the same clock verifies it.
      'x-service-signature': signPayload(job.body, entry.webhook.secret, {
        timestamp: Math.floor(this.options.clock.now() / 1000),
      }),
      'x-service-event-id': record.event_id,
      'x-service-event-type': record.event_type,
      'x-service-delivery-attempt': String(record.attempts),
    };
    const startedAt = this.options.now();
    const started = performance.now();
    const result = await postDelivery(
      entry.webhook.url,
      job.body,
      headers,
      this.options.deliveryTimeoutMs,
      this.abort.signal,
    );
    const durationMs = Math.round(performance.now() - started);
    this.inFlight -= 1;
    this.running.delete(job);
    if (this.closed) return this.notifyIfIdle();

    const now = this.options.now();
    record.last_status_code = result.statusCode;
    record.last_error = result.error;
    const delivered = result.error === null;
    if (delivered) {
      // `status` stays `pending`: the spec shows exactly that on a record with a 200 response, and
      // code written against the emulator must not learn a `delivered` value the service never showed.
      record.delivered_at = new Date(now).toISOString();
    } else if (record.attempts >= MAX_ATTEMPTS || entry.deleted) {
      record.status = 'failed';
    } else {
      const waitMs = RETRY_WAITS_MS[record.attempts - 1]! * this.options.timeScale;
      record.next_attempt_at = new Date(now + waitMs).toISOString();
      this.schedule(job, waitMs);
    }
    this.report(job, delivered, result.responseBody, startedAt, durationMs, headers);
    this.notifyIfIdle();
  }

  private rememberAttempt(webhookId: string, eventId: string, attempt: number): void {
    const key = attemptKey(webhookId, eventId);
    this.lastAttempt.delete(key);
    this.lastAttempt.set(key, attempt);
    if (this.lastAttempt.size > MAX_REMEMBERED_ATTEMPTS) {
      this.lastAttempt.delete(this.lastAttempt.keys().next().value!);
    }
  }

  private report(
    job: DeliveryJob,
    delivered: boolean,
    responseBody: string,
    startedAt: number,
    durationMs: number,
    requestHeaders: Record<string, string>,
  ): void {
    const hooks = [this.options.onAttempt, ...this.listeners];
    const { record, entry } = job;
    const report: AttemptReport = {
      webhookId: entry.webhook.id,
      url: entry.webhook.url,
      eventId: record.event_id,
      eventType: record.event_type,
      attempt: record.attempts,
      statusCode: record.last_status_code,
      error: record.last_error,
      delivered,
      responseBody,
      nextAttemptAt: record.next_attempt_at === null ? null : Date.parse(record.next_attempt_at),
      startedAt,
      durationMs,
      requestHeaders,
      requestBody: job.body,
    };
    for (const hook of hooks) {
      try {
        hook?.(report);
      } catch {
        // A logging hook must never break deliveries.
      }
    }
  }

  private notifyIfIdle(): void {
    if (this.pending !== 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

function attemptKey(webhookId: string, eventId: string): string {
  return `${webhookId} ${eventId}`;
}
