import { deliveryOutcome, type WebhookDelivery } from '@sms-webhooks/client';
import { OpsError } from './errors.js';

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Attacker-free, but still the service's text: bounded and quoted when it goes into a message. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * Each record's fields the audit reads, checked before any is used: a record of another shape is the
 * service's malformed answer (ERR_SMS_OPS_BAD_ANSWER, naming the record and the field), never a crash
 * blamed on the store.
 */
export function checkRecords(webhookId: string, data: unknown): WebhookDelivery[] {
  if (!Array.isArray(data)) {
    throw badAnswer(webhookId, `its \`data\` is ${shown(data)}, not a list of delivery records`);
  }
  data.forEach((record: Record<string, unknown> | null, i) => {
    const where = `record ${i}${typeof record?.id === 'string' ? ` (${shown(record.id)})` : ''}`;
    const field = (name: string, ok: (v: unknown) => boolean, expected: string) => {
      const value = record?.[name];
      if (!ok(value)) throw badAnswer(webhookId, `${where} has \`${name}\` ${shown(value)}, not ${expected}`);
    };
    if (typeof record !== 'object' || record === null) {
      throw badAnswer(webhookId, `${where} is ${shown(record)}, not an object`);
    }
    const time = (v: unknown) => typeof v === 'string' && TIME.test(v) && Number.isFinite(Date.parse(v));
    const orNull = (ok: (v: unknown) => boolean) => (v: unknown) => v === null || ok(v);
    field('event_id', (v) => typeof v === 'string' && v !== '', 'an event id');
    field('event_type', (v) => typeof v === 'string', 'an event type');
    field('created_at', time, 'an ISO 8601 timestamp');
    field('attempts', (v) => Number.isInteger(v) && (v as number) >= 0, 'a whole number');
    field('delivered_at', orNull(time), 'an ISO 8601 timestamp or null');
    field('next_attempt_at', orNull(time), 'an ISO 8601 timestamp or null');
    field('last_status_code', orNull(Number.isInteger), 'an HTTP status or null');
    field(
      'last_error',
      orNull((v) => typeof v === 'string'),
      'a string or null',
    );
  });
  return data as WebhookDelivery[];
}

function badAnswer(webhookId: string, detail: string): OpsError {
  return new OpsError(
    'ERR_SMS_OPS_BAD_ANSWER',
    `the service's deliveries list of ${webhookId} is malformed: ${detail}. The audit cannot trust it; nothing was read from the store.`,
  );
}

/** The records of one event (a redelivery, or another webhook of the app, adds one), folded. */
export function fold(records: WebhookDelivery[]) {
  const byTime = [...records].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
  const last = byTime[byTime.length - 1]!;
  const delivered = byTime.find((r) => r.delivered_at !== null);
  const pending = byTime.find((r) => ['retrying', 'in_progress'].includes(deliveryOutcome(r)));
  return {
    eventType: last.event_type,
    // A redelivery's record continues the attempt count ("a repeat has a higher number").
    attempts: Math.max(...byTime.map((r) => r.attempts)),
    lastStatusCode: last.last_status_code,
    lastError: last.last_error,
    deliveredAt: delivered?.delivered_at ?? null,
    nextAttemptAt: pending?.next_attempt_at ?? null,
    pending: pending !== undefined,
    createdAt: byTime[0]!.created_at,
  };
}

/** The records an audit covers, grouped by event; the test deliveries and those older than `oldest` counted apart. */
export function coveredRecords(records: readonly WebhookDelivery[], oldest: number) {
  let leftOut = 0;
  let tests = 0;
  const covered: WebhookDelivery[] = [];
  const byEvent = new Map<string, WebhookDelivery[]>();
  for (const record of records) {
    if (record.test || record.event_type === 'webhook.test') {
      tests++;
      continue;
    }
    if (Date.parse(record.created_at) < oldest) {
      leftOut++;
      continue;
    }
    covered.push(record);
    const list = byEvent.get(record.event_id) ?? [];
    list.push(record);
    byEvent.set(record.event_id, list);
  }
  return { covered, byEvent, leftOut, tests };
}
