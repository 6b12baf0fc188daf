import { type AuditReport, auditWebhook } from '@sms-webhooks/ops';
import { type ApiOptions, clientFor } from '../api-client.js';
import { CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { print } from '../output.js';
import { handledBy } from '../receiver-module.js';
import { connect, type StoreOptions } from '../store-connection.js';
import { auditTable } from './audit-table.js';
import { replayLines, replayWith } from './replay.js';

/** What `sms-webhooks audit` is given, as Commander parses it. */
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

/** `sms-webhooks audit`'s action: the report, then the replay when asked, then the exit it calls for. */
export async function runAudit(io: CliIo, webhookIds: string[], options: AuditOptions): Promise<void> {
  if (options.handles && options.receiver) {
    throw new CliError('give --handles or --receiver, not both.', { exitCode: 2 });
  }
  if (options.replay && !options.receiver) {
    throw new CliError("--replay runs the app's handlers: give --receiver <module>.", { exitCode: 2 });
  }
  const report = await readReport(io, webhookIds, options);
  if (options.replay && report.trusted) return replayAudited(io, webhookIds, options, report);
  print(io, options, report, () => auditTable(report, options.all === true));
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
}

async function readReport(io: CliIo, webhookIds: string[], options: AuditOptions): Promise<AuditReport> {
  const client = clientFor(io, options);
  const handled = options.receiver
    ? await handledBy(options.receiver)
    : options.handles && { types: options.handles, any: false };
  const connected = await connect(io, options);
  try {
    return await auditWebhook({
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
}

/** Runs every missed or unfinished event the store kept, prints the report with the replay, and fails on what is left. */
async function replayAudited(
  io: CliIo,
  webhookIds: string[],
  options: AuditOptions,
  report: AuditReport,
): Promise<void> {
  const wanted = report.events.filter((e) => e.replay === 'kept').map((e) => e.eventId);
  const results = wanted.length === 0 ? [] : await replayWith(io, options, wanted);
  const left = report.events.filter(
    (e) =>
      (e.category === 'missed' || e.category === 'unfinished') &&
      !results.some((r) => r.eventId === e.eventId && ['replayed', 'already-finished'].includes(r.outcome)),
  );
  print(io, options, { ...report, replayed: results }, () => [
    ...auditTable(report, options.all === true),
    '',
    results.length === 0 ? 'Nothing to replay: no missed or unfinished event has a kept body.' : 'Replay:',
    ...replayLines(results),
  ]);
  if (left.length > 0) {
    throw new CliError(
      `${left.length} missed or unfinished event(s) on ${webhookIds.join(' + ')} are left after the replay.`,
      { code: 'audit_failed' },
    );
  }
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
