import { type Command, InvalidArgumentError } from 'commander';
import type { CliIo } from '../io.js';
import { eventTypeList } from '../options.js';
import { connectionUrl } from '../store-connection.js';
import { type AuditOptions, runAudit } from './audit-run.js';

function hours(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a positive number of hours.');
  return n;
}

/** `sms-webhooks audit`: its arguments and options; the action is {@link runAudit}. */
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
    .action((webhookIds: string[], options: AuditOptions) => runAudit(io, webhookIds, options));
}
