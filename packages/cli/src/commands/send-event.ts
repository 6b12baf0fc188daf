import { createTestDelivery, type EventType, signPayload } from '@sms-webhooks/core';
import { CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { networkReason } from '../network-reason.js';
import { print } from '../output.js';
import { readState, rememberSent, statePath, writeState } from '../state-file.js';
import type { CliState } from '../state-format.js';
import { resolveSecret } from './secret.js';

/** What `sms-webhooks send` is given, as Commander parses it. */
export interface SendOptions {
  url: URL;
  secret?: string;
  data?: Record<string, unknown>;
  attempt?: number;
  id?: string;
  timestamp?: number;
  live?: boolean;
  timeout: number;
  stateFile?: string;
  json?: boolean;
}

/** The last attempt the spec allows: a repeat past it is sent as 6 again. */
const MAX_ATTEMPT = 6;

/** What an app answered, as JSON when it is JSON (so `--json` output nests it), else the text. */
function answerOf(text: string): unknown {
  try {
    return text === '' ? '' : JSON.parse(text);
  } catch {
    return text;
  }
}

/** `sms-webhooks send`'s action: one signed delivery to the app, remembered for a later `--id`. */
export async function sendEvent(io: CliIo, type: EventType, options: SendOptions): Promise<void> {
  const secret = resolveSecret(io, options.secret);
  const path = statePath(io, options.stateFile);
  // The state only serves a later --id: without one, a state file that cannot be used is no reason
  // not to send.
  const state: CliState = await readState(path).catch((error: Error) => {
    if (options.id !== undefined) throw error;
    io.stderr(`warning: ${error.message}\n`);
    return {};
  });
  const { id, body, attempt } = deliveryOf(state, type, secret, options);
  const headers = {
    'content-type': 'application/json',
    'x-service-signature': signPayload(body, secret, { timestamp: options.timestamp }),
    'x-service-event-id': id,
    'x-service-event-type': type,
    'x-service-delivery-attempt': String(attempt),
  };
  await writeState(path, rememberSent(state, id, { type, body, attempt })).catch((error: Error) =>
    io.stderr(`warning: ${error.message} (a later send --id ${id} cannot repeat it)\n`),
  );
  const url = options.url;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeout),
    });
  } catch (error) {
    throw new CliError(`could not deliver to ${url.href}: ${networkReason(error, options.timeout)}`, {
      code: 'delivery_failed',
    });
  }
  const text = await res.text();
  const result = { event_id: id, type, attempt, status: res.status, body: answerOf(text) };
  print(io, options, result, () => `${type} ${id} attempt ${attempt} → ${url.href}: ${res.status} ${text}`);
  if (res.status < 200 || res.status >= 300) {
    throw new CliError(`the app answered ${res.status}, not 2xx: the service would retry this delivery.`, {
      code: 'delivery_not_acknowledged',
      status: res.status,
    });
  }
}

/** The event to send: one sent before under `--id`, again, or a fresh one. */
function deliveryOf(
  state: CliState,
  type: EventType,
  secret: string,
  options: SendOptions,
): { id: string; body: string; attempt: number } {
  const earlier = options.id === undefined ? undefined : state.sent_events?.[options.id];
  if (earlier) {
    // The service resends identical bytes: the same body, only the signature's t and the attempt move.
    if (earlier.type !== type) {
      throw new CliError(
        `${options.id} was sent as ${earlier.type}: a redelivery keeps its type. Pick a new --id.`,
        { exitCode: 2 },
      );
    }
    if (options.data !== undefined || options.live) {
      throw new CliError(
        `${options.id} was sent before: a redelivery keeps its body, so --data and --live cannot change it. Pick a new --id.`,
        { exitCode: 2 },
      );
    }
    return {
      id: options.id!,
      body: earlier.body,
      attempt: options.attempt ?? Math.min(earlier.attempt + 1, MAX_ATTEMPT),
    };
  }
  const fresh = createTestDelivery(type, {
    secret,
    data: options.data as never,
    id: options.id,
    test: !options.live,
  });
  return { id: fresh.event.id, body: fresh.body, attempt: options.attempt ?? 1 };
}
