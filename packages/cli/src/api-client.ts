import { type Client, createClient } from '@sms-webhooks/client';
import { CliError } from './cli-error.js';
import type { CliIo } from './io.js';

export interface ApiOptions {
  baseUrl?: string;
  json?: boolean;
}

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;

/** A client for the service (or the emulator) from $SMS_API_KEY and --base-url / $SMS_API_BASE_URL. */
export function clientFor(io: CliIo, options: ApiOptions): Client {
  const apiKey = io.env.SMS_API_KEY;
  if (!apiKey) {
    throw new CliError('set SMS_API_KEY to your API key (sk_test_… for the emulator).', {
      code: 'api_key_missing',
    });
  }
  const baseUrl = options.baseUrl ?? io.env.SMS_API_BASE_URL;
  if (!baseUrl) {
    throw new CliError(
      'no service address: pass --base-url or set SMS_API_BASE_URL (the emulator prints it).',
      { code: 'base_url_missing' },
    );
  }
  let host: string;
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    throw new CliError(`the base URL is not an absolute URL: ${JSON.stringify(baseUrl)}.`);
  }
  // Against a local emulator, local plain-HTTP apps are fine to register.
  return createClient({ apiKey, baseUrl, allowInsecureLoopback: LOOPBACK.test(host) });
}
