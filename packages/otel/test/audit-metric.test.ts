import { ATTR, METRIC, recordAudit } from '@sms-webhooks/otel';
import { telemetry } from './telemetry.js';

describe('recordAudit', () => {
  it('records the last audit of each webhook as a gauge per category', async () => {
    const t = telemetry({ asyncContext: false });
    const { meterProvider } = t;
    recordAudit(
      { webhookId: 'wh_a', counts: { missed: 2, retrying: 1, unfinished: 0, fine: 7 } },
      { meterProvider },
    );
    recordAudit(
      { webhookId: 'wh_b', counts: { missed: 0, retrying: 0, unfinished: 3, fine: 1 } },
      { meterProvider },
    );
    // A later audit of the same webhook replaces its values: a gauge, not a sum.
    recordAudit(
      { webhookId: 'wh_a', counts: { missed: 1, retrying: 0, unfinished: 0, fine: 9 } },
      { meterProvider },
    );
    const of = (webhook: string, category: string) =>
      t.total(METRIC.auditEvents, { [ATTR.webhookId]: webhook, [ATTR.auditCategory]: category });
    expect([await of('wh_a', 'missed'), await of('wh_a', 'fine'), await of('wh_b', 'unfinished')]).toEqual([
      1, 9, 3,
    ]);
    await t.shutdown();
  });

  it('refuses what is not an audit report', () => {
    // @ts-expect-error not a report
    expect(() => recordAudit({ counts: {} })).toThrow(/takes the report of auditWebhook/);
  });
});
