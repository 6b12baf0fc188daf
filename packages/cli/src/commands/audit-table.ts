import type { AuditedEvent, AuditReport } from '@sms-webhooks/ops';
import { terminalText } from '../terminal-text.js';

const NOTE: Record<AuditedEvent['category'], (e: AuditedEvent) => string> = {
  missed: (e) => `gave up: ${e.lastError ?? `HTTP ${e.lastStatusCode}`}`,
  retrying: (e) => `next attempt ${e.nextAttemptAt ?? 'under way'}${e.lastError ? ` (${e.lastError})` : ''}`,
  unfinished: (e) =>
    e.failedJob
      ? `in the queue's failed set: ${e.failedJob.error ?? 'failed'} (sms-webhooks failed replay ${e.eventId})`
      : e.stored === 'in-flight'
        ? 'acknowledged; a handler holds its claim (running, or its process died)'
        : 'acknowledged; the store has no completion',
  fine: (e) => (e.ignored ? 'no handler for this type (ignored by design)' : 'delivered and completed'),
};

/**
 * What the store kept of a missed or unfinished event (keepDeliveries). Nothing kept says nothing: an app
 * without the option would read "not kept" on every line (`--json` has it as `replay: 'not-kept'`).
 */
const REPLAY: Record<NonNullable<AuditedEvent['replay']>, (e: AuditedEvent) => string> = {
  kept: (e) => `; kept: sms-webhooks replay ${e.eventId}`,
  'too-large': () => '; not kept: over keepDeliveries.maxBytes',
  'not-kept': () => '',
};

/** The audit as `sms-webhooks audit` prints it: the window, a row per event worth a look, the counts. */
export function auditTable(report: AuditReport, all: boolean): string[] {
  const { window: w, counts } = report;
  const names = report.webhookIds.join(' + ');
  const lines = [
    w.records === 0
      ? `Audit of ${names}: no delivery records to check.`
      : `Audit of ${names}: ${w.records} record(s) from ${w.from} to ${w.to} (the service lists recent records only: older ones were not checked).`,
  ];
  if (w.leftOut > 0) lines.push(`  ${w.leftOut} record(s) older than the store's retention were left out.`);
  const shown = report.events.filter((e) => all || e.category !== 'fine');
  if (shown.length > 0) {
    const rows = [
      ['CATEGORY', 'EVENT', 'TYPE', 'ATTEMPTS', 'LAST', 'NOTE'],
      ...shown.map((e) =>
        [
          e.category,
          e.eventId,
          e.eventType,
          String(e.attempts),
          e.lastStatusCode === null ? '-' : String(e.lastStatusCode),
          NOTE[e.category](e) + (e.replay ? REPLAY[e.replay](e) : ''),
        ].map(terminalText),
      ),
    ];
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    lines.push(
      '',
      ...rows.map((r) =>
        r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '),
      ),
    );
  }
  lines.push(
    '',
    `missed ${counts.missed} · unfinished ${counts.unfinished} · retrying ${counts.retrying} · fine ${counts.fine}`,
  );
  for (const warning of report.warnings) lines.push(`warning: ${warning}`);
  return lines;
}
