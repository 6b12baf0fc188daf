import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, isApiError } from './api-error.js';
import { routeApi } from './api-routes.js';
import { routeEmulator } from './emulator-routes.js';
import { requestPath, sendJson } from './http-io.js';
import { checkRequestSource } from './request-guard.js';
import type { EmulatorState } from './state.js';

/**
 * The emulator's request handler: the service's API and the emulator's own routes, errors as the
 * service words them. `boundToLoopback` is read per request, since `listen()` may pick another host.
 */
export function dispatcher(
  state: EmulatorState,
  boundToLoopback: () => boolean,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    try {
      checkRequestSource(req, boundToLoopback());
      const path = requestPath(req);
      if (path === '/_emulator/attempts' && req.method === 'GET') return streamAttempts(state, req, res);
      const result =
        path === undefined
          ? undefined
          : ((await routeEmulator(state, req, path)) ?? (await routeApi(state, req, path)));
      if (!result) throw new ApiError(404, 'not_found', `No route for ${req.method} ${path ?? req.url}.`);
      sendJson(res, result.status, result.body);
    } catch (error) {
      if (!isApiError(error)) {
        console.error('@sms-webhooks/emulator: internal error', error);
        sendJson(res, 500, {
          error: { code: 'internal_error', message: 'The emulator failed; see its log.' },
        });
        return;
      }
      // Unread request bodies would otherwise stall keep-alive connections.
      req.resume();
      sendJson(res, error.status, error.toBody(), error.headers);
    }
  };
}

/** NDJSON, one AttemptReport a line, for as long as the client stays: how `sms-webhooks listen` attaches. */
function streamAttempts(state: EmulatorState, req: IncomingMessage, res: ServerResponse): void {
  const only = new URL(req.url ?? '/', 'http://emulator').searchParams.getAll('webhook_id');
  res.writeHead(200, {
    'content-type': 'application/x-ndjson; charset=utf-8',
    'cache-control': 'no-store',
  });
  // A first line, so a client knows it is attached before any attempt happens.
  res.write(`${JSON.stringify({ attached: true, pending_deliveries: state.engine.pending })}\n`);
  const stop = state.engine.subscribe((report) => {
    if (only.length === 0 || only.includes(report.webhookId)) res.write(`${JSON.stringify(report)}\n`);
  });
  res.on('close', stop);
}
