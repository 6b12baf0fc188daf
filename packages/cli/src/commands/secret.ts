import { CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';

/** From --secret, else SMS_WEBHOOK_SECRET; never printed. */
export function resolveSecret(io: CliIo, flag: string | undefined): string {
  const secret = flag ?? io.env.SMS_WEBHOOK_SECRET;
  if (secret === undefined || secret.trim() === '') {
    throw new CliError('a webhook secret is required: pass --secret whsec_… or set SMS_WEBHOOK_SECRET.', {
      code: 'secret_missing',
    });
  }
  return secret;
}
