import { type AuditedEvent, type AuditReport, auditWebhook } from '@sms-webhooks/ops';
import { type Command, InvalidArgumentError } from 'commander';
import { type ApiOptions, clientFor } from '../api-client.js';
import { CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { eventTypeList } from '../options.js';
import { print } from '../output.js';
import { handledBy } from '../receiver-module.js';
import { connect, connectionUrl, type StoreOptions } from '../store-connection.js';
import { terminalText } from '../terminal-text.js';
import { replayLines, replayWith } from './replay.js';

export interface AuditOptions extends ApiOptions, StoreOptions {
  keyPrefix?: string;
  handles?: string[];
  receiver?: string;
  retainHours?: number;
  tenant?: string;
  replay?: boolean;
  all?: boolean;
  json?: boolean;
}

function hours(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a positive number of hours.');
  return n;
}

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

function table(report: AuditReport, all: boolean): string[] {
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

/** The service's errors go out as they are; a store's say which store, never its URL (it may hold a password). */
function storeError(error: unknown): unknown {
  const own = error as { name?: unknown; code?: unknown; message?: unknown } | null;
  if (own?.name === 'ServiceApiError' || own?.name === 'OpsError' || error instanceof CliError) return error;
  if (typeof own?.code === 'string' && own.code === 'ERR_SMS_OPS_OPTIONS') return error;
  const message = typeof own?.message === 'string' && own.message !== '' ? own.message : String(error);
  return new CliError(`could not read the dedupe store: ${message}`, { code: 'store_unavailable' });
}

/** Progress on stderr while a large audit reads the store: a line per 5,000 events, none for small ones. */
function progress(io: CliIo) {
  let shown = 0;
  return (read: number, total: number) => {
    if (total < 5000 || (read - shown < 5000 && read < total)) return;
    shown = read;
    io.stderr(`  read ${read} of ${total} events from the store\n`);
  };
}

export function registerAudit(program: Command, io: CliIo): void {
  program
    .command('audit')
    .description(
      "Join a webhook's delivery records with the receiver's dedupe store: missed, retrying, unfinished, fine. Exits 1 when anything is missed or unfinished, 2 when the report cannot be trusted (none of the delivered events is in the store: the wrong store or prefix).",
    )
    .argument(
      '<webhook_id...>',
      'wh_…; give several to audit them together (the old and the replacement while a rotation waits)',
    )
    .option('--base-url <url>', 'service address (default $SMS_API_BASE_URL)')
    .option('--redis-url <url>', "the RedisStore's Redis (default $REDIS_URL)", connectionUrl)
    .option('--database-url <url>', "the PostgresStore's database (default $DATABASE_URL)", connectionUrl)
    .option('--store-prefix <prefix>', "the RedisStore's key prefix, if not the default")
    .option('--table <name>', "the PostgresStore's table (default sms_webhook_events)")
    .option(
      '--key-prefix <prefix>',
      'put before each event id to make the store key (default none, as the receiver)',
    )
    .option(
      '--queue <name>',
      'the BullMQ (Redis), pg-boss (database) or, with --amqp-url, RabbitMQ queue the app hands off to: its failed jobs are named',
    )
    .option(
      '--amqp-url <url>',
      'RabbitMQ hand-off: the broker whose <queue>.failed is read (--queue, default sms-webhooks); messages are read and given back',
      connectionUrl,
    )
    .option('--schema <name>', "pg-boss's schema (default pgboss)")
    .option(
      '--handles <types>',
      'the event types the app handles: others are answered 200 and not stored',
      eventTypeList,
    )
    .option(
      '--receiver <module>',
      "or read them from the module that exports the app's receiver (`receiver`, the default export, or <module>#<name>)",
    )
    .option(
      '--retain-hours <hours>',
      "the receiver's retainMs in hours: older records are left out (default 24)",
      hours,
    )
    .option(
      '--tenant <name>',
      "the tenant whose webhook this is, when the receiver's `secret` is a function: its store keys are the tenant, URI-encoded, a slash and the event id (as the receiver writes them)",
    )
    .option(
      '--replay',
      "then run every missed or unfinished event the store kept (keepDeliveries) through the app's handlers, once each (needs --receiver)",
    )
    .option('--all', 'list the fine events too')
    .option('--json', 'print the report as JSON')
    .action(async (webhookIds: string[], options: AuditOptions) => {
      if (options.handles && options.receiver) {
        throw new CliError('give --handles or --receiver, not both.', { exitCode: 2 });
      }
      if (options.replay && !options.receiver) {
        throw new CliError("--replay runs the app's handlers: give --receiver <module>.", { exitCode: 2 });
      }
      const client = clientFor(io, options);
      const handled = options.receiver
        ? await handledBy(options.receiver)
        : options.handles && { types: options.handles, any: false };
      const connected = await connect(io, options);
      let report: AuditReport;
      try {
        report = await auditWebhook({
          client,
          webhookId: webhookIds,
          store: connected.store,
          keyPrefix: options.keyPrefix,
          tenant: options.tenant,
          onProgress: progress(io),
          findFailed: connected.findFailed,
          receiver: handled ? { handledTypes: () => handled } : undefined,
          retainMs: options.retainHours === undefined ? undefined : options.retainHours * 3_600_000,
        });
      } catch (error) {
        throw storeError(error);
      } finally {
        await connected.close();
      }
      if (options.replay && report.trusted) {
        const wanted = report.events.filter((e) => e.replay === 'kept').map((e) => e.eventId);
        const results = wanted.length === 0 ? [] : await replayWith(io, options, wanted);
        const left = report.events.filter(
          (e) =>
            (e.category === 'missed' || e.category === 'unfinished') &&
            !results.some(
              (r) => r.eventId === e.eventId && ['replayed', 'already-finished'].includes(r.outcome),
            ),
        );
        print(io, options, { ...report, replayed: results }, () => [
          ...table(report, options.all === true),
          '',
          results.length === 0
            ? 'Nothing to replay: no missed or unfinished event has a kept body.'
            : 'Replay:',
          ...replayLines(results),
        ]);
        if (left.length > 0) {
          throw new CliError(
            `${left.length} missed or unfinished event(s) on ${webhookIds.join(' + ')} are left after the replay.`,
            {
              code: 'audit_failed',
            },
          );
        }
        return;
      }
      print(io, options, report, () => table(report, options.all === true));
      if (!report.trusted) {
        throw new CliError(
          `the audit of ${webhookIds.join(' + ')} cannot be trusted: ${report.warnings[0]} Check --redis-url/--database-url, --store-prefix, --table, --key-prefix and --tenant.`,
          { code: 'audit_untrusted', exitCode: 2 },
        );
      }
      if (!report.ok) {
        throw new CliError(
          `${report.counts.missed} missed and ${report.counts.unfinished} unfinished event(s) on ${webhookIds.join(' + ')}.`,
          { code: 'audit_failed' },
        );
      }
    });
}
