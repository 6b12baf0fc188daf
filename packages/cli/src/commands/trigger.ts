import { EVENT_TYPES, type EventType } from '@sms-webhooks/core';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { CliError } from '../cli-error.js';
import { apiBaseOf, emulatorPost } from '../emulator-api.js';
import type { CliIo } from '../io.js';
import { eventId, eventType } from '../options.js';
import { print } from '../output.js';

interface TriggerOptions {
  to?: string[];
  fail?: string[];
  reply?: string;
  apiBase?: string;
  json?: boolean;
}

interface EmittedEvent {
  id: string;
  type: string;
  webhooks: string[];
}

const PHONE = /^\+[1-9]\d{6,14}$/;
const DEFAULT_TO = '+15555550100';

function phone(value: string, previous: string[] = []): string[] {
  if (!PHONE.test(value)) throw new InvalidArgumentError('must be a number like +15555550100.');
  return [...previous, value];
}

/** The service-side scenario that emits each type: a send and what follows it, or a test event. */
export function scenario(
  type: EventType,
  options: TriggerOptions = {},
): { path: string; body: Record<string, unknown> } {
  if (type === 'webhook.test') return { path: '/_emulator/events', body: { type } };
  const to = options.to ?? [DEFAULT_TO];
  const body: Record<string, unknown> = { to };
  // A failure needs a failing recipient: all of them unless --fail names some.
  const fail = options.fail ?? (type === 'message.failed' ? to : undefined);
  if (fail) body.fail = fail;
  if (type === 'message.replied') {
    body.replies = Object.fromEntries(
      to.filter((n) => !fail?.includes(n)).map((n) => [n, options.reply ?? 'YES']),
    );
  }
  return { path: '/_emulator/sends', body };
}

export function registerTrigger(program: Command, io: CliIo): void {
  program
    .command('trigger')
    .description(
      'Make the running emulator emit an event: it plays the send, delivery, failure or reply behind it.',
    )
    .argument('<event-type>', `event type: ${EVENT_TYPES.join(', ')}`, eventType)
    .option('--to <number...>', `recipients (default ${DEFAULT_TO})`, phone)
    .option('--fail <number...>', 'recipients whose message fails (message.failed: all, by default)', phone)
    .option('--reply <text>', 'the reply text for message.replied (default YES)')
    .option('--api-base <url>', 'the emulator (default $SMS_API_BASE_URL, else http://127.0.0.1:4010)')
    .option('--json', "print the emulator's answer as JSON")
    .addHelpText(
      'after',
      '\nEvents of a send, in order: message.sent, then message.delivered or message.failed per recipient,\nmessage.replied for replies, then sms.completed.\n\nExample:\n  sms-webhooks trigger message.failed --to +15555550100 --to +15555550101 --fail +15555550101',
    )
    .action(async (type: EventType, options: TriggerOptions) => {
      const apiBase = apiBaseOf(io, options.apiBase);
      const { path, body } = scenario(type, options);
      const answer = (await emulatorPost(apiBase, path, body)) as { sms_id?: string; events: EmittedEvent[] };
      const events = answer.events ?? [];
      if (!events.some((e) => e.type === type)) {
        throw new CliError(
          `no webhook on the emulator at ${apiBase} subscribes to ${type}: run \`sms-webhooks listen --forward-to …\` first.`,
          { code: 'no_subscriber' },
        );
      }
      print(io, options, answer, () => [
        `Triggered ${type}${answer.sms_id ? ` (send ${answer.sms_id})` : ''}:`,
        ...events.map((e) => `  ${e.type.padEnd(17)}  ${e.id}  → ${e.webhooks.join(', ')}`),
      ]);
    });

  program
    .command('resend')
    .description(
      'Deliver an event again, same id and body, with the next attempt number (as the service retries).',
    )
    .argument('<event_id>', 'evt_…, as `listen` or `trigger` printed it', eventId)
    .option('--api-base <url>', 'the emulator (default $SMS_API_BASE_URL, else http://127.0.0.1:4010)')
    .option('--json', "print the emulator's answer as JSON")
    .action(async (id: string, options: { apiBase?: string; json?: boolean }) => {
      const apiBase = apiBaseOf(io, options.apiBase);
      const answer = (await emulatorPost(
        apiBase,
        `/_emulator/events/${encodeURIComponent(id)}/redeliver`,
      )) as {
        data: { id: string; attempts: number; event_type: string }[];
      };
      print(io, options, answer, () =>
        answer.data.map((d) => `Resent ${d.event_type} ${id} as attempt ${d.attempts} (delivery ${d.id}).`),
      );
    });
}
