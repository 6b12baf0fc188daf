import { type Gauge, type MeterProvider, metrics } from '@opentelemetry/api';
import { ATTR, METRIC } from './attributes.js';

/** What `recordAudit` reads of an audit report (`auditWebhook` of @sms-webhooks/ops). */
export interface AuditCounts {
  /** The audited webhook. */
  webhookId: string;
  /** Events per audit category. */
  counts: Readonly<Record<string, number>>;
}

const gauges = new WeakMap<MeterProvider, Gauge>();

/**
 * Records an audit's result: `sms_webhooks.audit.events`, a gauge of the events in each category
 * (missed, retrying, unfinished, fine) for the webhook, so an alert can fire on `missed > 0`.
 */
export function recordAudit(report: AuditCounts, options: { meterProvider?: MeterProvider } = {}): void {
  if (typeof report?.webhookId !== 'string' || typeof report.counts !== 'object' || report.counts === null) {
    throw new TypeError(
      '@sms-webhooks/otel: recordAudit(report) takes the report of auditWebhook (webhookId, counts).',
    );
  }
  const provider = options.meterProvider ?? metrics.getMeterProvider();
  let gauge = gauges.get(provider);
  if (gauge === undefined) {
    gauge = provider.getMeter('@sms-webhooks/otel').createGauge(METRIC.auditEvents, {
      description: 'Events of the last audit of a webhook, by category.',
      unit: '{event}',
    });
    gauges.set(provider, gauge);
  }
  for (const [category, count] of Object.entries(report.counts)) {
    gauge.record(count, { [ATTR.webhookId]: report.webhookId, [ATTR.auditCategory]: category });
  }
}
