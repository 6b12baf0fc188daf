import { type AnyWebhookEvent, randomId, signPayload } from '@sms-webhooks/core';
import { MAX_ATTEMPTS, RETRY_WAITS_MS, type ResolvedEmulatorOptions } from './options.js';
import { postDelivery } from './post-delivery.js';
import type { WebhookDelivery } from './types.js';
import type { WebhookEntry } from './webhook-registry.js';

interface DeliveryJob {
  record: WebhookDelivery;
  entry: WebhookEntry;
  body: string;
  timer: NodeJS.Timeout | undefined;
}

export interface IdleWaiter {
  resolve(): void;
}

/**
 * Sends each event to each subscribed webhook and retries on the spec's schedule. The body is
 * serialised once per event, so every attempt carries the same bytes; it is re-signed per attempt
 * because the signature's `t` must be fresh.
 */
export class DeliveryEngine {
  private readonly byWebhook = new Map<string, DeliveryJob[]>();
  private readonly scheduled = new Set<DeliveryJob>();
  private inFlight = 0;
  private waiters: (() => void)[] = [];
  private readonly abort = new AbortController();
  private closed = false;

  constructor(private readonly options: ResolvedEmulatorOptions) {}

  deliver(entry: WebhookEntry, event: AnyWebhookEvent, test = false): WebhookDelivery {
    const record: WebhookDelivery = {
      id: randomId('whd'),
      object: 'webhook_delivery',
      status: 'pending',
      attempts: 0,
      created_at: new Date(this.options.now()).toISOString(),
      event_id: event.id,
      event_type: event.type as WebhookDelivery['event_type'],
      delivered_at: null,
      last_error: null,
      last_status_code: null,
      next_attempt_at: null,
      test,
    };
    const job: DeliveryJob = { record, entry, body: JSON.stringify(event), timer: undefined };
    const jobs = this.byWebhook.get(entry.webhook.id) ?? [];
    jobs.push(job);
    // Old records beyond the cap are forgotten (their retries, if any, still run).
    if (jobs.length > this.options.maxDeliveriesPerWebhook) jobs.shift();
    this.byWebhook.set(entry.webhook.id, jobs);
    void this.attempt(job);
    return record;
  }

  /** Newest first. */
  deliveries(webhookId: string): WebhookDelivery[] {
    return (this.byWebhook.get(webhookId) ?? []).map((j) => ({ ...j.record })).reverse();
  }

  /** Stops retries for a deleted webhook; its records stay readable. */
  cancel(webhookId: string): void {
    for (const job of this.byWebhook.get(webhookId) ?? []) {
      if (!this.scheduled.delete(job)) continue;
      clearTimeout(job.timer);
      job.record.next_attempt_at = null;
      job.record.status = 'failed';
      job.record.last_error = `${job.record.last_error ?? ''} (webhook deleted, retries cancelled)`.trim();
    }
    this.notifyIfIdle();
  }

  get pending(): number {
    return this.inFlight + this.scheduled.size;
  }

  /** Resolves once no attempt is running and none is scheduled. */
  waitForIdle(timeoutMs = 30_000): Promise<void> {
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

  close(): void {
    this.closed = true;
    for (const job of this.scheduled) clearTimeout(job.timer);
    this.scheduled.clear();
    this.abort.abort();
    this.notifyIfIdle();
  }

  private async attempt(job: DeliveryJob): Promise<void> {
    if (this.closed) return;
    const { record, entry } = job;
    this.inFlight += 1;
    record.attempts += 1;
    record.next_attempt_at = null;
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'sms-webhooks-emulator/0.1',
      'x-service-signature': signPayload(job.body, entry.webhook.secret),
      'x-service-event-id': record.event_id,
      'x-service-event-type': record.event_type,
      'x-service-delivery-attempt': String(record.attempts),
    };
    const result = await postDelivery(
      entry.webhook.url,
      job.body,
      headers,
      this.options.deliveryTimeoutMs,
      this.abort.signal,
    );
    this.inFlight -= 1;
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
      job.timer = setTimeout(() => {
        this.scheduled.delete(job);
        void this.attempt(job);
      }, waitMs);
      job.timer.unref();
      this.scheduled.add(job);
    }
    this.report(job, delivered, result.responseBody);
    this.notifyIfIdle();
  }

  private report(job: DeliveryJob, delivered: boolean, responseBody: string): void {
    const hook = this.options.onAttempt;
    if (!hook) return;
    const { record, entry } = job;
    try {
      hook({
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
      });
    } catch {
      // A logging hook must never break deliveries.
    }
  }

  private notifyIfIdle(): void {
    if (this.pending !== 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
