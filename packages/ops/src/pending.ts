import { type Client, deliveryOutcome, type WebhookDelivery } from '@sms-webhooks/client';

/** An event the old webhook still owes the app: an attempt scheduled or under way, and no copy elsewhere. */
export interface PendingDelivery {
  /** The event's id. */
  eventId: string;
  /** The event's type. */
  eventType: string;
  /** Attempts the service has made. */
  attempts: number;
  /** ISO time of the service's next attempt; null while one is under way. */
  nextAttemptAt: string | null;
  /** The app's answer to the latest attempt, or null when none answered. */
  lastStatusCode: number | null;
}

/**
 * What deleting `webhookId` would lose: its records with an attempt scheduled or under way (the service
 * cancels them with the webhook) whose event none of `carriedBy` has a record of. An event the
 * replacement also has is retried there on its own schedule, so it does not hold the old webhook up;
 * `webhook.test` deliveries never do.
 */
export async function pendingOnlyOn(
  client: Pick<Client, 'listDeliveries'>,
  webhookId: string,
  carriedBy: readonly string[],
): Promise<PendingDelivery[]> {
  const carried = new Set<string>();
  for (const id of carriedBy) {
    for (const record of (await client.listDeliveries(id)).data) carried.add(record.event_id);
  }
  const pending = new Map<string, PendingDelivery>();
  for (const record of (await client.listDeliveries(webhookId)).data) {
    if (record.test || record.event_type === 'webhook.test' || carried.has(record.event_id)) continue;
    if (!isPending(record)) continue;
    pending.set(record.event_id, {
      eventId: record.event_id,
      eventType: record.event_type,
      attempts: record.attempts,
      nextAttemptAt: record.next_attempt_at,
      lastStatusCode: record.last_status_code,
    });
  }
  return [...pending.values()].sort((a, b) => (a.nextAttemptAt ?? '').localeCompare(b.nextAttemptAt ?? ''));
}

function isPending(record: WebhookDelivery): boolean {
  const outcome = deliveryOutcome(record);
  return outcome === 'retrying' || outcome === 'in_progress';
}
