import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import type { Client, WebhookEventType } from '@sms-webhooks/client';
import {
  checkCoverage,
  type PendingDelivery,
  type RotateResult,
  retireWebhook,
  rotateWebhook,
  smokeTest,
  syncWebhook,
  type WebhookDeclaration,
} from '@sms-webhooks/ops';
import { type Command, InvalidArgumentError } from 'commander';
import { type ApiOptions, clientFor } from '../api-client.js';
import { CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { eventTypeList } from '../options.js';
import { print } from '../output.js';
import { handledBy } from '../receiver-module.js';
import { terminalText } from '../terminal-text.js';

interface DeclarationOptions extends ApiOptions {
  url: string;
  events: WebhookEventType[];
  description?: string;
  secretFile?: string;
}

/**
 * A new webhook's secret, handed over once: to a file only the owner can read (for a secret manager to
 * pick up), or else printed on stdout. Never on stderr, never in an error.
 */
async function handOver(options: { secretFile?: string; json?: boolean }, secret: string) {
  if (options.secretFile === undefined) return { printed: true };
  // Written whole to a new 0600 file beside it, then renamed: whatever watches for the file (a secret
  // manager's agent) never reads it empty or half written, and a file that was there is replaced, mode and all.
  const temporary = `${options.secretFile}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    await rename(temporary, options.secretFile);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return { printed: false, secretFile: options.secretFile };
}

function duration(name: string) {
  return (value: string): number => {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value);
    if (!match) throw new InvalidArgumentError(`${name} is a duration like 500ms, 30s, 15m or 1h.`);
    return (
      Number(match[1]) *
      { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] as 'ms' | 's' | 'm' | 'h') ?? 'ms']
    );
  };
}

const withApi = (cmd: Command) =>
  cmd
    .option('--base-url <url>', 'service address (default $SMS_API_BASE_URL)')
    .option('--json', 'print the result as JSON');

const declared = (cmd: Command) =>
  cmd
    .requiredOption('--url <url>', 'the HTTPS URL the app receives on')
    .requiredOption('--events <types>', 'comma-separated event types', eventTypeList)
    .option('--description <text>', 'at most 200 characters');

/** The commands that keep webhooks as the app's code declares them: sync, coverage, smoke-test, rotate, retire. */
export function registerWebhooksFromCode(webhooks: Command, io: CliIo): void {
  registerSync(webhooks, io);
  registerCoverage(webhooks, io);
  registerSmokeTest(webhooks, io);
  registerRotate(webhooks, io);
  registerRetire(webhooks, io);
}

function registerSync(webhooks: Command, io: CliIo): void {
  withApi(
    declared(
      webhooks
        .command('sync')
        .description(
          'Make sure a webhook as declared exists: create it when no webhook has the URL, leave a matching one as it is, report a mismatch. Never touches other URLs.',
        ),
    ),
  )
    .option('--secret-file <path>', "write a new webhook's secret there (mode 0600) instead of printing it")
    .action(async (options: DeclarationOptions) => {
      const result = await syncWebhook(clientFor(io, options), {
        url: options.url,
        events: options.events,
        description: options.description,
      });
      if (result.action === 'created') {
        const { secret, ...rest } = result;
        const where = await handOver(options, secret);
        print(io, options, where.printed ? result : { ...rest, secretFile: where.secretFile }, () => [
          `Created ${result.webhook.id} → ${result.webhook.url}`,
          where.printed
            ? `  secret: ${secret}\n  (shown only now: store it where your app reads it)`
            : `  secret written to ${where.secretFile} (mode 0600)`,
        ]);
        return;
      }
      if (result.action === 'unchanged') {
        print(
          io,
          options,
          result,
          () => `${result.webhook.id} → ${result.webhook.url} matches the declaration.`,
        );
        return;
      }
      print(io, options, result, () =>
        result.webhooks.map((w) => `${w.webhook.id} → ${w.webhook.url}: ${w.differences.join('; ')}`),
      );
      throw new CliError(
        `no webhook with ${options.url} matches the declaration (the service has no update): replace it with \`sms-webhooks webhooks rotate <id> --events …\`.`,
        { code: 'webhook_mismatch' },
      );
    });
}

function registerCoverage(webhooks: Command, io: CliIo): void {
  withApi(
    webhooks
      .command('coverage')
      .description("Compare a webhook's events with the types the app handles; exits 1 on a difference.")
      .argument('<webhook_id>', 'wh_…'),
  )
    .option('--handles <types>', 'the event types the app has handlers for', eventTypeList)
    .option(
      '--receiver <module>',
      'a module exporting the receiver (`receiver`, the default export, or <module>#<name>)',
    )
    .action(async (id: string, options: ApiOptions & { handles?: WebhookEventType[]; receiver?: string }) => {
      if ((options.handles === undefined) === (options.receiver === undefined)) {
        throw new CliError('say what the app handles: --handles <types> or --receiver <module>.', {
          exitCode: 2,
        });
      }
      const handled = options.receiver
        ? await handledBy(options.receiver)
        : { types: options.handles!, any: false };
      const webhook = (await clientFor(io, options).listWebhooks()).data.find((w) => w.id === id);
      if (!webhook) throw new CliError(`no live webhook ${id} in this workspace.`, { code: 'not_found' });
      const report = checkCoverage(webhook.events, handled);
      print(io, options, { webhookId: id, ...report }, () => [
        ...(report.notSubscribed.length > 0
          ? [`handled, but ${id} does not subscribe: ${report.notSubscribed.join(', ')}`]
          : []),
        ...(report.notHandled.length > 0
          ? [`subscribed, but nothing handles: ${report.notHandled.join(', ')}`]
          : []),
        ...(report.ok ? [`${id} subscribes to what the app handles.`] : []),
      ]);
      if (!report.ok)
        throw new CliError(`the events of ${id} and the app's handlers differ.`, {
          code: 'coverage_mismatch',
        });
    });
}

function registerSmokeTest(webhooks: Command, io: CliIo): void {
  withApi(
    webhooks
      .command('smoke-test')
      .description(
        'Send a webhook.test event and wait for the app to answer it 2xx; exits 1 with what it answered otherwise.',
      )
      .argument('<webhook_id>', 'wh_…'),
  )
    .option('--timeout <duration>', 'how long to wait for the answer (default 60s)', duration('--timeout'))
    .action(async (id: string, options: ApiOptions & { timeout?: number }) => {
      const result = await smokeTest(clientFor(io, options), id, {
        timeoutMs: options.timeout,
        signal: io.signal,
      });
      print(io, options, result, () =>
        result.ok
          ? `${id}: the app answered the test delivery ${result.statusCode}.`
          : `${id}: ${result.error}`,
      );
      if (!result.ok) {
        throw new CliError(
          result.statusCode === null
            ? `the app did not answer the test delivery: ${result.error}`
            : `the app answered the test delivery ${result.statusCode}.`,
          { code: 'smoke_test_failed', ...(result.statusCode === null ? {} : { status: result.statusCode }) },
        );
      }
    });
}

function registerRotate(webhooks: Command, io: CliIo): void {
  withApi(
    webhooks
      .command('rotate')
      .description(
        'Replace a webhook (new secret, or new --events): create the replacement, hand its secret over, wait until the app accepts it, then delete the old one once it has no delivery pending that only it carries.',
      )
      .argument('<webhook_id>', 'the wh_… webhook to replace'),
  )
    .option('--events <types>', "the replacement's events (default the old webhook's)", eventTypeList)
    .option('--description <text>', "the replacement's description (default the old webhook's)")
    .option('--secret-file <path>', 'write the new secret there (mode 0600) instead of printing it')
    .option(
      '--timeout <duration>',
      'how long to wait for the app to accept the new secret (default 15m)',
      duration('--timeout'),
    )
    .option('--retry <duration>', 'between two test deliveries meanwhile (default 15s)', duration('--retry'))
    .option(
      '--drain-timeout <duration>',
      "how long to wait for the old webhook's pending retries before leaving it for `webhooks retire` (default 15m; 0 checks once)",
      duration('--drain-timeout'),
    )
    .option('--no-probe', "ask through the service's test deliveries only, never the app's URL directly")
    .action((id: string, options: RotateCommandOptions) => rotate(io, id, options));
}

interface RotateCommandOptions extends ApiOptions {
  events?: WebhookEventType[];
  description?: string;
  secretFile?: string;
  timeout?: number;
  retry?: number;
  drainTimeout?: number;
  probe?: boolean;
}

async function rotate(io: CliIo, id: string, options: RotateCommandOptions): Promise<void> {
  if (options.json && options.secretFile === undefined) {
    // The secret must reach someone before the wait starts, and --json prints only at the end.
    throw new CliError('with --json, give --secret-file <path> for the new secret.', { exitCode: 2 });
  }
  const client = clientFor(io, options);
  const result = await rotateWebhook(client, {
    webhookId: id,
    declaration: await replacementDeclaration(client, id, options),
    timeoutMs: options.timeout,
    retryMs: options.retry,
    drainTimeoutMs: options.drainTimeout,
    probe: options.probe,
    signal: io.signal,
    async handOver(secret, replacement) {
      const where = await handOver(options, secret);
      // Progress goes to stderr, so stdout holds only the result (and the secret, when printed).
      io.stderr(
        `Created ${replacement.id}; ${where.printed ? 'its secret is printed below' : `its secret is in ${where.secretFile}`}. Deploy the app with both secrets (secret: [old, new]); waiting for it to accept the new one…\n`,
      );
      if (where.printed) io.stdout(`secret: ${secret}\n`);
    },
    onProbe(r) {
      if (r.outcome === 'refused') io.stderr(`  not yet: the app answered ${r.error}\n`);
      if (r.outcome === 'unreachable') {
        io.stderr(
          `  the app's URL is not reachable from here (${r.error}): asking through the service's test deliveries\n`,
        );
      }
    },
    onSmokeTest(r) {
      if (!r.ok) io.stderr(`  not yet: ${r.error}\n`);
    },
    onWaiting: waitingLine(io, id),
  });
  printRotation(io, options, result);
}

/** The old webhook's URL with the new --events or --description; undefined (the same) when neither is given. */
async function replacementDeclaration(
  client: Client,
  id: string,
  options: RotateCommandOptions,
): Promise<WebhookDeclaration | undefined> {
  if (!options.events && options.description === undefined) return undefined;
  const old = (await client.listWebhooks()).data.find((w) => w.id === id);
  if (!old) return undefined;
  return {
    url: old.url,
    events: options.events ?? old.events,
    description: options.description ?? old.description,
  };
}

function printRotation(io: CliIo, options: RotateCommandOptions, result: RotateResult): void {
  print(io, options, result, () =>
    result.oldDeleted
      ? [
          `${result.replacement.id} → ${result.replacement.url} accepted by the app; deleted ${result.old.id}.`,
          'Now remove the old secret from the app.',
        ]
      : [
          `${result.replacement.id} → ${result.replacement.url} accepted by the app; ${result.old.id} is kept: it still retries ${result.waitingFor.length} event(s) the replacement does not have.`,
          ...pendingLines(result.waitingFor),
          `Keep both secrets in the app, and run \`sms-webhooks webhooks retire ${result.old.id} --replacement ${result.replacement.id}\` after ${lastAttempt(result.waitingFor)}.`,
        ],
  );
  if (!result.oldDeleted) {
    throw new CliError(
      `rotation is not finished: ${result.old.id} still has ${result.waitingFor.length} delivery(ies) pending; finish with \`sms-webhooks webhooks retire ${result.old.id} --replacement ${result.replacement.id}\`.`,
      { code: 'rotation_pending', exitCode: 3 },
    );
  }
}

function registerRetire(webhooks: Command, io: CliIo): void {
  withApi(
    webhooks
      .command('retire')
      .description(
        "Delete a webhook once no delivery of its own is pending (the service cancels a deleted webhook's retries); exits 3 naming what it still waits for.",
      )
      .argument('<webhook_id>', 'the wh_… webhook to delete'),
  )
    .option(
      '--replacement <webhook_id>',
      'the webhook that replaced it: events it also has are retried there and do not hold this one up',
    )
    .option(
      '--timeout <duration>',
      'how long to wait for the pending deliveries (default 0: check once)',
      duration('--timeout'),
    )
    .action(async (id: string, options: ApiOptions & { replacement?: string; timeout?: number }) => {
      const result = await retireWebhook(clientFor(io, options), {
        webhookId: id,
        replacementId: options.replacement,
        timeoutMs: options.timeout,
        signal: io.signal,
        onWaiting: options.timeout ? waitingLine(io, id) : undefined,
      });
      print(io, options, result, () =>
        result.deleted
          ? `Deleted ${id}: it had no delivery pending.`
          : [
              `${id} is kept: it still retries ${result.waitingFor.length} event(s).`,
              ...pendingLines(result.waitingFor),
            ],
      );
      if (!result.deleted) {
        throw new CliError(
          `${id} still has ${result.waitingFor.length} delivery(ies) pending; run again after ${lastAttempt(result.waitingFor)}.`,
          { code: 'webhook_busy', exitCode: 3 },
        );
      }
    });
}

function pendingLines(pending: PendingDelivery[]): string[] {
  // The service's text: no escape sequence of it reaches the terminal.
  return pending.map((p) =>
    terminalText(
      `  ${p.eventId}  ${p.eventType}  attempt ${p.attempts}, last answer ${p.lastStatusCode ?? '-'}, next ${p.nextAttemptAt ?? 'under way'}`,
    ),
  );
}

/** When the last of the pending attempts is due: the earliest moment a retire can succeed. */
function lastAttempt(pending: PendingDelivery[]): string {
  const times = pending.map((p) => p.nextAttemptAt).filter((t): t is string => t !== null);
  return times.length === 0 ? 'the attempts under way finish' : times.sort().at(-1)!;
}

/** One progress line on stderr per change in what the old webhook still owes. */
function waitingLine(io: CliIo, id: string) {
  let last = '';
  return (pending: PendingDelivery[]) => {
    const line = `  waiting for ${id}: ${pending.length} event(s) pending, next attempt ${pending[0]?.nextAttemptAt ?? 'under way'}\n`;
    if (line !== last) io.stderr(line);
    last = line;
  };
}
