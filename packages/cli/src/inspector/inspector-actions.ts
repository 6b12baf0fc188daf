import type { IncomingMessage, ServerResponse } from 'node:http';
import { isKnownEventType } from '@sms-webhooks/core';
import { emulatorPost } from '../emulator-api.js';
import { json, readJson } from './inspector-http.js';
import type { InspectorOptions } from './inspector-options.js';

/** The page's buttons, `POST /api/…`: trigger an event, or resend one, on the emulator. */
export async function act(
  options: InspectorOptions,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  let body: Record<string, unknown>;
  try {
    body = await readJson(req);
  } catch {
    return json(res, 400, { error: { code: 'bad_request', message: 'Send a small JSON object.' } });
  }
  try {
    if (path === '/api/trigger') {
      const type = body.type;
      if (typeof type !== 'string' || !isKnownEventType(type) || !options.events.includes(type)) {
        return json(res, 422, {
          error: { code: 'validation_error', message: `type must be one of ${options.events.join(', ')}` },
        });
      }
      const { path: route, body: payload } = options.scenario(type);
      return json(res, 202, await emulatorPost(options.apiBase, route, payload));
    }
    const resend = /^\/api\/events\/(evt_[\w-]{1,100})\/resend$/.exec(path);
    if (resend) {
      return json(res, 202, await emulatorPost(options.apiBase, `/_emulator/events/${resend[1]}/redeliver`));
    }
    json(res, 404, { error: { code: 'not_found', message: `No route for POST ${path}.` } });
  } catch (error) {
    const e = error as { status?: number; code?: string; message: string };
    json(res, e.status && e.status >= 400 && e.status < 600 ? e.status : 502, {
      error: { code: e.code ?? 'emulator_error', message: e.message },
    });
  }
}
