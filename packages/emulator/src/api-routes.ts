import type { IncomingMessage } from 'node:http';
import { ApiError, validationError } from './api-error.js';
import { readJsonObject } from './http-io.js';
import type { EmulatorState } from './state.js';
import type { ListOf, WebhookDelivery, WebhookOut } from './types.js';
import { checkWebhookId, validateWebhookIn } from './validate-webhook.js';
import { maskSecret } from './webhook-registry.js';

export interface RouteResult {
  status: number;
  body?: unknown;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function exchangeToken(state: EmulatorState, req: IncomingMessage): Promise<RouteResult> {
  const body = await readJsonObject(req);
  const fromBody = body?.api_key;
  if (fromBody !== undefined && fromBody !== null && typeof fromBody !== 'string') {
    throw validationError([{ field: 'api_key', message: 'must be a string or null' }]);
  }
  // An empty header is no credential: it must not hide a key given in the body.
  const apiKey = header(req, 'x-api-key') || (fromBody as string | null | undefined) || undefined;
  state.limiter.hit(`key:${apiKey ?? req.socket.remoteAddress ?? ''}`);
  return { status: 200, body: state.tokens.exchange(apiKey) };
}

/**
 * null when the segment is not valid percent-encoding (`%E0`). Decoding must not throw here: the
 * spec answers 401 before anything else, so the bad id is reported as a 422 only after auth.
 */
function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** Routes of spec section 4. Paths are matched exactly; the method decides between 404 and 405. */
export async function routeApi(
  state: EmulatorState,
  req: IncomingMessage,
  path: string,
): Promise<RouteResult | undefined> {
  const method = req.method ?? 'GET';
  if (path === '/v1/auth/token') {
    if (method !== 'POST') throw methodNotAllowed('POST');
    return exchangeToken(state, req);
  }
  const segments = path.split('/').filter(Boolean);
  if (segments[0] !== 'v1' || segments[1] !== 'webhooks' || segments.length > 4) return undefined;
  const webhookId = segments[2] === undefined ? undefined : decodeSegment(segments[2]);
  const sub = segments[3];
  if (sub !== undefined && sub !== 'deliveries' && sub !== 'test') return undefined;

  const allowed =
    webhookId === undefined ? 'GET, POST' : sub === undefined ? 'DELETE' : sub === 'test' ? 'POST' : 'GET';
  if (!allowed.split(', ').includes(method)) throw methodNotAllowed(allowed);

  const workspace = state.tokens.authenticate(header(req, 'authorization'));
  state.limiter.hit(`ws:${workspace.id}`);

  if (webhookId === undefined) {
    if (method === 'POST') {
      const input = validateWebhookIn(await readJsonObject(req), state.options.allowInsecureLoopback);
      const entry = state.webhooks.create(workspace, input, new Date(state.options.now()));
      return { status: 201, body: { ...entry.webhook } satisfies WebhookOut };
    }
    const data = state.webhooks.list(workspace.id).map((e) => ({
      ...e.webhook,
      secret: maskSecret(e.webhook.secret),
    }));
    return { status: 200, body: { object: 'list', data } satisfies ListOf<WebhookOut> };
  }

  if (webhookId === null) {
    throw validationError([{ field: 'webhook_id', message: 'is not valid percent-encoding' }]);
  }
  checkWebhookId(webhookId);
  if (sub === undefined) {
    if (!state.webhooks.delete(webhookId, workspace.id)) throw notFound(webhookId);
    state.engine.cancel(webhookId);
    return { status: 204 };
  }
  if (sub === 'deliveries') {
    // The spec lists no 404 here: an unknown id reads as a webhook with no deliveries.
    const known = state.webhooks.find(webhookId, workspace.id);
    const data = known ? state.engine.deliveries(webhookId) : [];
    return { status: 200, body: { object: 'list', data } satisfies ListOf<WebhookDelivery> };
  }
  // One rule for an unknown id outside DELETE (the only route whose 404 the spec lists): it reads as a
  // webhook with no deliveries that subscribes to nothing, so the test route answers its listed 422.
  const entry = state.webhooks.find(webhookId, workspace.id);
  if (!entry || entry.deleted) {
    throw validationError([
      {
        field: 'webhook_id',
        message: `no webhook ${webhookId} in this workspace subscribes to webhook.test`,
      },
    ]);
  }
  if (!entry.webhook.events.includes('webhook.test')) {
    throw validationError([{ field: 'events', message: 'the webhook does not subscribe to webhook.test' }]);
  }
  const delivery = state.sendTest(entry);
  return {
    status: 202,
    body: {
      object: 'webhook_test',
      webhook_id: webhookId,
      event_id: delivery.event_id,
      delivery_id: delivery.id,
    },
  };
}

function notFound(id: string): ApiError {
  return new ApiError(404, 'not_found', `No webhook ${id} in this workspace.`);
}

function methodNotAllowed(allow: string): ApiError {
  return new ApiError(405, 'method_not_allowed', `Use ${allow} on this path.`, undefined, { allow });
}
