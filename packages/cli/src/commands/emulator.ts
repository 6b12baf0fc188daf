import { type AttemptReport, createEmulator } from '@sms-webhooks/emulator';
import type { Command } from 'commander';
import { processSignal, untilAborted } from '../abort-signal.js';
import { CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { integer, webhookSecret } from '../options.js';
import { timeScaleOption } from './time-scale-option.js';

interface EmulatorCommandOptions {
  port: number;
  host: string;
  timeScale: number;
  insecureLoopback: boolean;
  apiKey?: string[];
  rateLimit: number;
  webhookSecret?: string;
  json?: boolean;
}

function describeAttempt(a: AttemptReport): string {
  const outcome = a.delivered
    ? 'delivered'
    : a.nextAttemptAt === null
      ? 'failed, no more attempts'
      : `failed, retry at ${new Date(a.nextAttemptAt).toISOString()}`;
  return `${a.eventType} ${a.eventId} → ${a.url} attempt ${a.attempt}: ${a.statusCode ?? a.error} (${outcome})`;
}

export function registerEmulator(program: Command, io: CliIo): void {
  program
    .command('emulator')
    .description('Run the local stand-in for the service: token exchange, webhook API and signed deliveries.')
    .option('--port <port>', 'port to listen on (0 = any free port)', integer('--port', 0, 65_535), 4010)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .addOption(timeScaleOption())
    .option(
      '--no-insecure-loopback',
      'refuse http:// webhook URLs on localhost (HTTPS only, like the service)',
    )
    .option('--api-key <key...>', 'accept only these API keys (default any sk_test_… / sk_live_…)')
    .option(
      '--rate-limit <n>',
      'requests per second per credential',
      integer('--rate-limit', 1, 1_000_000),
      100,
    )
    .option(
      '--webhook-secret <whsec>',
      'give every webhook this secret, so apps keep verifying across restarts (default random per webhook)',
      webhookSecret,
    )
    .option('--json', 'print the address and each delivery attempt as JSON lines')
    .addHelpText(
      'after',
      '\nThen, in another shell:\n  export SMS_API_BASE_URL=http://127.0.0.1:4010 SMS_API_KEY=sk_test_local\n  sms-webhooks webhooks create --url http://localhost:3000/webhooks/sms --events message.delivered\n  sms-webhooks trigger message.delivered',
    )
    .action(async (options: EmulatorCommandOptions) => {
      const emulator = createEmulator({
        port: options.port,
        host: options.host,
        timeScale: options.timeScale,
        allowInsecureLoopback: options.insecureLoopback,
        apiKeys: options.apiKey,
        rateLimit: { limit: options.rateLimit, windowMs: 1000 },
        webhookSecret: options.webhookSecret,
        onAttempt: (a) =>
          io.stdout(options.json ? `${JSON.stringify({ attempt: a })}\n` : `${describeAttempt(a)}\n`),
      });
      let url: string;
      try {
        url = await emulator.listen();
      } catch (error) {
        throw new CliError(`cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`, {
          code: 'listen_failed',
        });
      }
      if (options.json) {
        io.stdout(`${JSON.stringify({ url })}\n`);
      } else {
        const key = options.apiKey?.[0] ?? 'sk_test_local';
        io.stdout(
          [
            `sms-webhooks emulator listening on ${url}`,
            `  export SMS_API_BASE_URL=${url}`,
            `  export SMS_API_KEY=${key}${options.apiKey ? '' : '   (any sk_test_… or sk_live_… key works)'}`,
            `  plain-HTTP loopback webhook URLs: ${options.insecureLoopback ? 'allowed' : 'refused'}; retry waits ×${options.timeScale}`,
            `  make events happen: sms-webhooks trigger message.delivered  ·  sms-webhooks resend evt_…`,
            'Press Ctrl+C to stop.',
            '',
          ].join('\n'),
        );
      }
      await untilAborted(io.signal ?? processSignal());
      await emulator.close();
    });
}
