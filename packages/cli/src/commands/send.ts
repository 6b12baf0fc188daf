import { createTestDelivery, EVENT_TYPES, type EventType } from '@sms-webhooks/core';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { eventType, integer, jsonObject } from '../options.js';
import { print } from '../output.js';
import { resolveSecret } from './secret.js';

interface SendOptions {
  url: string;
  secret?: string;
  data?: Record<string, unknown>;
  attempt?: number;
  id?: string;
  live?: boolean;
  timeout: number;
  json?: boolean;
}

export function registerSend(program: Command, io: CliIo): void {
  program
    .command('send')
    .description('POST one signed sample event to your app, as the service would (like `stripe trigger`).')
    .argument('<type>', `event type: ${EVENT_TYPES.join(', ')}`, eventType)
    .requiredOption('--url <url>', 'your webhook route, e.g. http://localhost:3000/webhooks')
    .option('--secret <secret>', 'the webhook secret your app verifies with (default $SMS_WEBHOOK_SECRET)')
    .option('--data <json>', 'fields merged over the sample data, as a JSON object', jsonObject)
    .option('--id <evt_id>', 'event id (default a fresh evt_…); reuse one to test duplicate handling')
    .option('--attempt <n>', 'X-Service-Delivery-Attempt value', integer('--attempt', 1, 6))
    .option('--live', 'send with "test": false')
    .option('--timeout <ms>', 'give up after this many ms', integer('--timeout', 1, 600_000), 10_000)
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      '\nExample:\n  sms-webhooks send message.delivered --url http://localhost:3000/webhooks --secret whsec_…',
    )
    .action(async (type: EventType, options: SendOptions) => {
      const secret = resolveSecret(io, options.secret);
      if (options.id !== undefined && !/^evt_[A-Za-z0-9]+$/.test(options.id)) {
        throw new CliError('--id must look like evt_….');
      }
      let url: URL;
      try {
        url = new URL(options.url);
      } catch {
        throw new CliError(`--url must be an absolute URL, got ${JSON.stringify(options.url)}.`);
      }
      const delivery = createTestDelivery(type, {
        secret,
        data: options.data as never,
        id: options.id,
        attempt: options.attempt,
        test: !options.live,
      });
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers: delivery.headers,
          body: delivery.body,
          redirect: 'manual',
          signal: AbortSignal.timeout(options.timeout),
        });
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        const reason =
          (error as Error).name === 'TimeoutError'
            ? `no answer within ${options.timeout} ms`
            : cause?.code
              ? `${cause.code} ${cause.message ?? ''}`.trim()
              : (cause?.message ?? (error as Error).message);
        throw new CliError(`could not deliver to ${url.href}: ${reason}`, { code: 'delivery_failed' });
      }
      const body = await res.text();
      const result = { event_id: delivery.event.id, type, status: res.status, body };
      print(io, options, result, () => `${type} ${delivery.event.id} → ${url.href}: ${res.status} ${body}`);
      if (res.status < 200 || res.status >= 300) {
        // The service would retry this delivery.
        throw new CliError(
          `the app answered ${res.status}, not 2xx: the service would retry this delivery.`,
          {
            code: 'delivery_not_acknowledged',
            status: res.status,
          },
        );
      }
    });
}
