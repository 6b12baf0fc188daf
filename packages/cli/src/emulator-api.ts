import { ServiceApiError } from '@sms-webhooks/client';
import { CliError } from './cli-error.js';
import type { CliIo } from './io.js';
import { networkReason } from './network-reason.js';

/** Where `listen` starts its emulator and where `trigger`, `resend` and `listen --api-base` look for one. */
export const DEFAULT_API_BASE = 'http://127.0.0.1:4010';

export function apiBaseOf(io: CliIo, flag: string | undefined): string {
  const base = flag ?? io.env.SMS_API_BASE_URL ?? DEFAULT_API_BASE;
  try {
    return new URL(base).href.replace(/\/+$/, '');
  } catch {
    throw new CliError(`the emulator address is not an absolute URL: ${JSON.stringify(base)}.`, {
      exitCode: 2,
    });
  }
}

/** A POST to one of the emulator's own `/_emulator` routes; errors read like the service API's. */
export async function emulatorPost(apiBase: string, path: string, body?: unknown): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(`${apiBase}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    throw unreachable(apiBase, error);
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (res.ok) return parsed;
  const e = (parsed as { error?: { code?: string; message?: string; details?: never } })?.error;
  if (res.status === 404 && e?.code === undefined) {
    throw new CliError(`${apiBase} is not an sms-webhooks emulator (no ${path}).`, {
      code: 'not_an_emulator',
    });
  }
  throw new ServiceApiError(e?.message ?? `The emulator answered HTTP ${res.status}.`, {
    status: res.status,
    code: e?.code ?? 'http_error',
    details: e?.details,
  });
}

export function unreachable(apiBase: string, error: unknown): CliError {
  return new CliError(
    `cannot reach the emulator at ${apiBase}: ${networkReason(error, 10_000)}. Start one with \`sms-webhooks listen --forward-to …\` or \`sms-webhooks emulator\`.`,
    { code: 'network_error' },
  );
}
