import { EVENT_TYPES, type EventType } from '@sms-webhooks/core';
import type { Command } from 'commander';
import type { CliIo } from '../io.js';
import { absoluteUrl, eventId, eventType, integer, jsonObject } from '../options.js';
import { type SendOptions, sendEvent } from './send-event.js';

/** `sms-webhooks send`: its argument and options; the action is {@link sendEvent}. */
export function registerSend(program: Command, io: CliIo): void {
  program
    .command('send')
    .description(
      'POST one signed sample event to your app, as the service would; repeat an --id to redeliver it.',
    )
    .argument('<type>', `event type: ${EVENT_TYPES.join(', ')}`, eventType)
    .requiredOption(
      '--url <url>',
      'your webhook route, e.g. http://localhost:3000/webhooks/sms',
      absoluteUrl('--url'),
    )
    .option('--secret <secret>', 'the webhook secret your app verifies with (default $SMS_WEBHOOK_SECRET)')
    .option('--data <json>', 'fields merged over the sample data, as a JSON object', jsonObject)
    .option(
      '--id <evt_id>',
      'event id (default a fresh evt_…); an id sent before is sent again, byte for byte',
      eventId,
    )
    .option(
      '--attempt <n>',
      'X-Service-Delivery-Attempt (default 1, or the next one for a repeated --id)',
      integer('--attempt', 1, 6),
    )
    .option(
      '--timestamp <unix>',
      'unix seconds to sign with (default now); an old one sends a stale delivery',
      integer('--timestamp', 0, 99_999_999_999),
    )
    .option('--live', 'send with "test": false')
    .option('--timeout <ms>', 'give up after this many ms', integer('--timeout', 1, 600_000), 10_000)
    .option(
      '--state-file <path>',
      'where sent events are kept for --id (default ~/.local/state/sms-webhooks/state.json)',
    )
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      '\nExample:\n  sms-webhooks send message.delivered --url http://localhost:3000/webhooks/sms --secret whsec_…\n  sms-webhooks send message.delivered --url http://localhost:3000/webhooks/sms --id evt_… # the same bytes again',
    )
    .action((type: EventType, options: SendOptions) => sendEvent(io, type, options));
}
