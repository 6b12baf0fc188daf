import { describeValue, optionError } from '@sms-webhooks/internal';
import { DEFAULT_HEADER_PREFIX } from './headers.js';

/** The spec's tolerance, in seconds, between a signature's timestamp and now. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

function fail(message: string): never {
  throw optionError('sms-webhooks', message);
}

/** The secrets as a non-empty list of trimmed, non-empty strings, or a TypeError saying what to fix. */
export function checkSecrets(secret: unknown): readonly string[] {
  if (typeof secret === 'string' && secret !== '' && secret.trim() === secret) return [secret];
  const list = typeof secret === 'string' ? [secret] : secret;
  if (!Array.isArray(list) || list.length === 0) {
    fail(
      '`secret` is required: pass the webhook secret (whsec_…) from the service, or an array of them while rotating.',
    );
  }
  for (let i = 0; i < list.length; i++) {
    const s: unknown = list[i];
    const where = list.length > 1 ? `secret[${i}]` : 'secret';
    if (typeof s !== 'string') {
      fail(`\`${where}\` must be a string (whsec_…), got ${describeValue(s)}.`);
    }
    if (s === '') {
      fail(`\`${where}\` is empty. Is the environment variable holding the webhook secret set?`);
    }
    if (s.trim() !== s) {
      fail(`\`${where}\` has leading or trailing whitespace (a stray newline from a .env file?). Trim it.`);
    }
  }
  return list as readonly string[];
}

export function checkHeaderPrefix(value: unknown): string {
  if (value === undefined) return DEFAULT_HEADER_PREFIX;
  if (typeof value !== 'string' || !/^[A-Za-z0-9-]+$/.test(value)) {
    fail(`\`headerPrefix\` must be a header-name prefix such as 'x-service', got ${describeValue(value)}.`);
  }
  return value;
}
