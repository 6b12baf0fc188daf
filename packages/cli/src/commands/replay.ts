import { type ReplayedEvent, type ReplayOptions, replayEvents } from '@sms-webhooks/ops';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { print } from '../output.js';
import { loadReceiver } from '../receiver-module.js';
import { connectionUrl, connectStore, type StoreOptions } from '../store-connection.js';
import { terminalText } from '../terminal-text.js';

export interface ReplayCliOptions extends StoreOptions {
  receiver?: string;
  tenant?: string;
  keyPrefix?: string;
  retainHours?: number;
  leaseMinutes?: number;
  json?: boolean;
}

const SAID: Record<ReplayedEvent['outcome'], (e: ReplayedEvent) => string> = {
  replayed: () => 'replayed: its handlers ran and it is recorded done',
  'already-finished': () => 'already finished: not run again',
  'in-flight': () =>
    "in flight: a claim holds it (a delivery running now, or a process that died in its handler: try again after the receiver's leaseMs)",
  'not-kept': (e) =>
    e.reason === 'too-large'
      ? 'not kept: its body was over keepDeliveries.maxBytes'
      : 'not kept: never verified by the receiver, kept by an app without keepDeliveries, or past its retention',
  failed: (e) => `failed again: ${e.error}`,
};

/** One line per event, the service's and the handler's text made safe for a terminal. No body, ever. */
export function replayLines(results: ReplayedEvent[]): string[] {
  return results.map((r) => terminalText(`${r.eventId}  ${r.eventType ?? '-'}  ${SAID[r.outcome](r)}`));
}

/** Runs `eventIds` through the app's handlers with the store behind `options` (see replayEvents). */
export async function replayWith(
  io: CliIo,
  options: ReplayCliOptions,
  eventIds: string[],
): Promise<ReplayedEvent[]> {
  if (!options.receiver) {
    throw new CliError(
      "say whose handlers run the events: --receiver <module> (the module exporting the app's receiver).",
      { code: 'receiver_missing', exitCode: 2 },
    );
  }
  const receiver = await loadReceiver<ReplayOptions['receiver'] & { runHandlers: unknown }>(
    options.receiver,
    'runHandlers',
  );
  const connected = await connectStore(io, options);
  try {
    return await replayEvents({
      store: connected.store,
      receiver,
      eventIds,
      tenant: options.tenant,
      keyPrefix: options.keyPrefix,
      leaseMs: options.leaseMinutes === undefined ? undefined : options.leaseMinutes * 60_000,
      retainMs: options.retainHours === undefined ? undefined : options.retainHours * 3_600_000,
      onEvent: (r) => io.stderr(`  ${replayLines([r])[0]}\n`),
      logger: { warn: (m) => io.stderr(`${m}\n`), error: (m) => io.stderr(`${m}\n`) },
    });
  } finally {
    await connected.close();
  }
}

/** Exit 0 when every event ran or had already run; 1 otherwise, naming how many. */
export function replayVerdict(results: ReplayedEvent[]): void {
  const left = results.filter((r) => r.outcome !== 'replayed' && r.outcome !== 'already-finished');
  if (left.length > 0) {
    throw new CliError(`${left.length} of ${results.length} event(s) were not replayed (see above).`, {
      code: 'replay_incomplete',
    });
  }
}

function positive(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new CliError('must be a positive number.', { exitCode: 2 });
  return n;
}

export function registerReplay(program: Command, io: CliIo): void {
  program
    .command('replay')
    .description(
      "Run events again through the app's handlers from the deliveries the receiver kept (keepDeliveries), each under the same claim as a live delivery: one that already finished is not run again, two replays at once run it once.",
    )
    .argument('<event_id...>', 'evt_…')
    .requiredOption(
      '--receiver <module>',
      "the module exporting the app's receiver (`receiver`, the default export, or <module>#<name>)",
    )
    .option('--redis-url <url>', "the RedisStore's Redis (default $REDIS_URL)", connectionUrl)
    .option('--database-url <url>', "the PostgresStore's database (default $DATABASE_URL)", connectionUrl)
    .option('--store-prefix <prefix>', "the RedisStore's key prefix, if not the default")
    .option('--table <name>', "the PostgresStore's table (default sms_webhook_events)")
    .option('--key-prefix <prefix>', 'put before each event id to make the store key (default none)')
    .option('--tenant <name>', "the tenant, when the receiver's `secret` is a function")
    .option('--lease-minutes <n>', "the receiver's leaseMs in minutes (default 5)", positive)
    .option('--retain-hours <n>', "the receiver's retainMs in hours (default 24)", positive)
    .option('--json', 'print the results as JSON')
    .action(async (eventIds: string[], options: ReplayCliOptions) => {
      const results = await replayWith(io, options, eventIds);
      print(io, options, { results }, () => replayLines(results));
      replayVerdict(results);
    });
}
