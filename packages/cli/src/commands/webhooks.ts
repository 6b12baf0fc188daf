import { deliveryOutcome, type WebhookEventType } from '@sms-webhooks/client';
import type { Command } from 'commander';
import { type ApiOptions, clientFor } from '../api-client.js';
import type { CliIo } from '../io.js';
import { eventTypeList } from '../options.js';
import { print } from '../output.js';
import { registerWebhooksFromCode } from './webhooks-ops.js';

const withApi = (cmd: Command) =>
  cmd
    .option('--base-url <url>', 'service address (default $SMS_API_BASE_URL)')
    .option('--json', 'print the API response as JSON');

export function registerWebhooks(program: Command, io: CliIo): void {
  const webhooks = program
    .command('webhooks')
    .description('Manage webhooks through the service API (key from $SMS_API_KEY).')
    .addHelpText(
      'after',
      '\nEnvironment:\n  SMS_API_KEY        API key, sent only to the token exchange\n  SMS_API_BASE_URL   service address (or --base-url)',
    );
  registerCreate(webhooks, io);
  registerList(webhooks, io);
  registerDelete(webhooks, io);
  registerDeliveries(webhooks, io);
  registerTest(webhooks, io);
  registerWebhooksFromCode(webhooks, io);
}

function registerCreate(webhooks: Command, io: CliIo): void {
  withApi(
    webhooks.command('create').description('Register a URL for some event types; prints the secret once.'),
  )
    .requiredOption('--url <url>', 'HTTPS URL (plain HTTP on localhost when talking to the emulator)')
    .requiredOption('--events <types>', 'comma-separated event types', eventTypeList)
    .option('--description <text>', 'at most 200 characters')
    .action(
      async (options: ApiOptions & { url: string; events: WebhookEventType[]; description?: string }) => {
        const webhook = await clientFor(io, options).createWebhook({
          url: options.url,
          events: options.events,
          description: options.description,
        });
        print(io, options, webhook, () => [
          `Created ${webhook.id} → ${webhook.url}`,
          `  events: ${webhook.events.join(', ')}`,
          `  secret: ${webhook.secret}`,
          '  (the secret is shown only now: store it where your app reads it, e.g. SMS_WEBHOOK_SECRET)',
        ]);
      },
    );
}

function registerList(webhooks: Command, io: CliIo): void {
  withApi(webhooks.command('list').description('List the webhooks of this workspace.')).action(
    async (options: ApiOptions) => {
      const list = await clientFor(io, options).listWebhooks();
      print(io, options, list, () =>
        list.data.length === 0
          ? 'No webhooks.'
          : list.data.map(
              (w) =>
                `${w.id}  ${w.url}  [${w.events.join(', ')}]${w.description ? `  ${w.description}` : ''}`,
            ),
      );
    },
  );
}

function registerDelete(webhooks: Command, io: CliIo): void {
  withApi(
    webhooks.command('delete').description('Delete a webhook.').argument('<webhook_id>', 'wh_…'),
  ).action(async (id: string, options: ApiOptions) => {
    await clientFor(io, options).deleteWebhook(id);
    print(io, options, { id, deleted: true }, () => `Deleted ${id}.`);
  });
}

function registerDeliveries(webhooks: Command, io: CliIo): void {
  withApi(
    webhooks
      .command('deliveries')
      .description('Recent deliveries of a webhook.')
      .argument('<webhook_id>', 'wh_…'),
  ).action(async (id: string, options: ApiOptions) => {
    const list = await clientFor(io, options).listDeliveries(id);
    print(io, options, list, () =>
      list.data.length === 0
        ? 'No deliveries.'
        : list.data.map(
            (d) =>
              `${d.id}  ${d.event_type.padEnd(17)} ${d.event_id}  ${deliveryOutcome(d).padEnd(11)} status=${d.status} attempts=${d.attempts} last=${d.last_status_code ?? '-'}${d.next_attempt_at ? ` next=${d.next_attempt_at}` : ''}${d.last_error ? `  (${d.last_error})` : ''}`,
          ),
    );
  });
}

function registerTest(webhooks: Command, io: CliIo): void {
  withApi(
    webhooks
      .command('test')
      .description('Send one webhook.test event to a webhook.')
      .argument('<webhook_id>', 'wh_…'),
  ).action(async (id: string, options: ApiOptions) => {
    const result = await clientFor(io, options).testWebhook(id);
    print(io, options, result ?? { accepted: true }, () => `Test event queued for ${id}.`);
  });
}
