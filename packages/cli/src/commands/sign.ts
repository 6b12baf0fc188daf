import { signPayload } from '@sms-webhooks/core';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { integer } from '../options.js';
import { print } from '../output.js';
import { resolveSecret } from './secret.js';

interface SignOptions {
  secret?: string;
  file?: string;
  timestamp?: number;
  json?: boolean;
}

async function payloadOf(io: CliIo, payload: string | undefined, file: string | undefined): Promise<string> {
  if (payload !== undefined && file !== undefined)
    throw new CliError('give the payload or --file, not both.');
  if (payload !== undefined) return payload;
  if (file !== undefined) {
    if (!io.readFile) throw new CliError('--file is not available here.');
    try {
      return await io.readFile(file);
    } catch (error) {
      throw new CliError(`cannot read ${file}: ${(error as Error).message}`, { code: 'file_unreadable' });
    }
  }
  if (!io.readStdin) throw new CliError('give a payload argument or --file.');
  return io.readStdin();
}

export function registerSign(program: Command, io: CliIo): void {
  program
    .command('sign')
    .description('Print the X-Service-Signature header value for a payload (t=…,v1=…).')
    .argument('[payload]', 'the exact body to sign; default --file, else standard input')
    .option('--secret <secret>', 'the webhook secret (default $SMS_WEBHOOK_SECRET)')
    .option('--file <path>', 'sign the bytes of this file')
    .option(
      '--timestamp <unix>',
      'unix seconds to sign with (default now)',
      integer('--timestamp', 0, 99_999_999_999),
    )
    .option('--json', 'print {"header","timestamp"} as JSON')
    .addHelpText('after', '\nExample:\n  sms-webhooks sign \'{"id":"evt_1"}\' --secret whsec_…')
    .action(async (payload: string | undefined, options: SignOptions) => {
      const secret = resolveSecret(io, options.secret);
      const body = await payloadOf(io, payload, options.file);
      const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
      const header = signPayload(body, secret, { timestamp });
      print(io, options, { header, timestamp }, () => header);
    });
}
