import { CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';

/**
 * From --secret, else SMS_WEBHOOK_SECRET; never printed. A padded secret is refused here, as
 * `createReceiver` refuses it, instead of signing a delivery every receiver answers `signature_mismatch`.
 */
export function resolveSecret(io: CliIo, flag: string | undefined): string {
  const secret = flag ?? io.env.SMS_WEBHOOK_SECRET;
  const from = flag === undefined ? 'SMS_WEBHOOK_SECRET' : '--secret';
  if (secret === undefined || secret.trim() === '') {
    throw new CliError('a webhook secret is required: pass --secret whsec_… or set SMS_WEBHOOK_SECRET.', {
      code: 'secret_missing',
    });
  }
  if (secret.trim() !== secret) {
    throw new CliError(
      `${from} has leading or trailing whitespace (a stray newline from a .env file?): receivers refuse such a secret. Trim it.`,
      { code: 'secret_invalid', exitCode: 2 },
    );
  }
  return secret;
}
