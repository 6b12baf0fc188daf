import type { WebhookDelivery } from '@sms-webhooks/client';
import { auditedEvents } from './audit-events.js';
import { withFailedJobs, withKept } from './audit-lookups.js';
import { type AuditOptions, checkOptions } from './audit-options.js';
import { checkRecords, coveredRecords } from './audit-records.js';
import type { AuditCategory, AuditReport } from './audit-report.js';
import { UNTRUSTED, warningsOf } from './audit-warnings.js';

const ORDER: Record<AuditCategory, number> = { missed: 0, unfinished: 1, retrying: 2, fine: 3 };

/**
 * Joins the service's delivery records of one webhook with what the receiver's store knows of each
 * event, and sorts every event into missed, retrying, unfinished or fine. Read-only on both sides.
 *
 * @example
 * ```ts
 * import { createClient } from '@sms-webhooks/client';
 * import { createReceiver } from '@sms-webhooks/core';
 * import { auditWebhook } from '@sms-webhooks/ops';
 * import { RedisStore } from '@sms-webhooks/redis';
 * import { Redis } from 'ioredis';
 *
 * const store = new RedisStore({ client: new Redis(process.env.REDIS_URL!), clientType: 'ioredis' });
 * const receiver = createReceiver({ secret: process.env.SMS_WEBHOOK_SECRET!, store }).on(
 *   'message.delivered',
 *   async () => {},
 * );
 * const report = await auditWebhook({
 *   client: createClient({ apiKey: process.env.SMS_API_KEY!, baseUrl: process.env.SMS_API_BASE_URL! }),
 *   webhookId: 'wh_…',
 *   store,
 *   receiver, // what it handles: other types are answered 200 and never stored
 * });
 * if (!report.trusted) process.exitCode = 2; // the wrong store or prefix: see report.warnings
 * else if (!report.ok) process.exitCode = 1; // something missed or unfinished: report.events says what
 * ```
 */
export async function auditWebhook(options: AuditOptions): Promise<AuditReport> {
  const o = checkOptions(options);
  const checkedAt = o.now();
  const records: WebhookDelivery[] = [];
  for (const id of o.webhookIds) records.push(...checkRecords(id, (await o.client.listDeliveries(id)).data));
  const { covered, byEvent, leftOut, tests } = coveredRecords(records, checkedAt - o.retainMs);
  const handled = o.receiver?.handledTypes();
  const events = await auditedEvents(o, byEvent, handled);
  if (o.findFailed) await withFailedJobs(events, o.findFailed);
  if (o.store.keptDelivery) await withKept(events, o.store, o.keyOf);
  events.sort((a, b) => ORDER[a.category] - ORDER[b.category] || a.createdAt - b.createdAt);
  const counts: Record<AuditCategory, number> = { missed: 0, retrying: 0, unfinished: 0, fine: 0 };
  for (const e of events) counts[e.category]++;
  const times = covered.map((r) => r.created_at).sort((a, b) => Date.parse(a) - Date.parse(b));
  const warnings = warningsOf(events, handled !== undefined);
  const trusted = !warnings.some((w) => w.startsWith(UNTRUSTED));
  return {
    webhookId: o.webhookIds[0]!,
    webhookIds: o.webhookIds,
    checkedAt: new Date(checkedAt).toISOString(),
    window: {
      from: times[0] ?? null,
      to: times[times.length - 1] ?? null,
      records: covered.length,
      leftOut,
      tests,
    },
    counts,
    events: events.map(({ createdAt: _, ...e }) => e),
    ok: trusted && counts.missed === 0 && counts.unfinished === 0,
    trusted,
    warnings,
  };
}
