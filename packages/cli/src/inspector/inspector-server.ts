import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isKnownEventType } from '@sms-webhooks/core';
import { isLoopbackHost } from '@sms-webhooks/emulator';
import { emulatorPost } from '../emulator-api.js';
import type { InspectorState } from './inspector-state.js';
import { INSPECTOR_ICON, INSPECTOR_PAGE, INSPECTOR_SCRIPT, INSPECTOR_STYLE } from './page.js';

export interface InspectorOptions {
  state: InspectorState;
  /** The emulator the buttons act on. */
  apiBase: string;
  /** The event types the trigger button offers (those the webhook subscribes to). */
  events: readonly string[];
  /** How to play a trigger of `type` on the emulator: the route and body `sms-webhooks trigger` posts. */
  scenario(type: string): { path: string; body: unknown };
  port: number;
}

export interface Inspector {
  url: string;
  close(): Promise<void>;
}

const MAX_BODY = 4096;

/**
 * The page and its API, on 127.0.0.1 only. Like the emulator, it answers only a loopback `Host` (no DNS
 * rebinding) and, stricter, only its own origin: a page on another local port (a dev server) can neither
 * read the deliveries nor press the buttons, which need `application/json` (so a cross-site form or
 * text/plain POST cannot send one without a CORS preflight, which is never granted).
 */
function refusal(req: IncomingMessage, origin: string): [number, string] | undefined {
  const host = req.headers.host ?? '';
  let hostname = '';
  try {
    hostname = new URL(`http://${host}`).hostname;
  } catch {}
  if (!isLoopbackHost(hostname)) return [403, `host_not_allowed: the inspector answers only ${origin}`];
  const from = req.headers.origin;
  if (from !== undefined && from !== origin && from !== `http://${host}`) {
    return [403, 'origin_not_allowed: only the inspector page itself may call it'];
  }
  if (req.headers['sec-fetch-site'] === 'cross-site')
    return [403, 'origin_not_allowed: a cross-site request'];
  if (req.method === 'POST') {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') return [415, 'unsupported_media_type: send application/json'];
  }
  return undefined;
}

const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'self'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
};

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type }).end(body);
}

const json = (res: ServerResponse, status: number, value: unknown) =>
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) {
    text += chunk;
    if (text.length > MAX_BODY) throw new Error('body too large');
  }
  const parsed = text === '' ? {} : (JSON.parse(text) as unknown);
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : {};
}

/** Starts the inspector; resolves once it listens. */
export async function startInspector(options: InspectorOptions): Promise<Inspector> {
  let origin = '';
  const streams = new Set<ServerResponse>();

  async function act(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
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
        return json(
          res,
          202,
          await emulatorPost(options.apiBase, `/_emulator/events/${resend[1]}/redeliver`),
        );
      }
      json(res, 404, { error: { code: 'not_found', message: `No route for POST ${path}.` } });
    } catch (error) {
      const e = error as { status?: number; code?: string; message: string };
      json(res, e.status && e.status >= 400 && e.status < 600 ? e.status : 502, {
        error: { code: e.code ?? 'emulator_error', message: e.message },
      });
    }
  }

  function stream(res: ServerResponse): void {
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream; charset=utf-8' });
    // The current list first, then each event again whenever it gets an attempt.
    res.write(`event: snapshot\ndata: ${JSON.stringify(options.state.list())}\n\n`);
    const off = options.state.subscribe((event) =>
      res.write(`event: update\ndata: ${JSON.stringify(event)}\n\n`),
    );
    streams.add(res);
    res.on('close', () => {
      off();
      streams.delete(res);
    });
  }

  const server: Server = createServer((req, res) => {
    const denied = refusal(req, origin);
    if (denied) {
      req.resume();
      const [status, message] = denied;
      return json(res, status, { error: { code: message.split(':')[0], message } });
    }
    const path = new URL(req.url ?? '/', 'http://inspector').pathname;
    if (req.method === 'GET' && path === '/')
      return send(res, 200, 'text/html; charset=utf-8', INSPECTOR_PAGE);
    if (req.method === 'GET' && path === '/inspector.css')
      return send(res, 200, 'text/css; charset=utf-8', INSPECTOR_STYLE);
    // Browsers ask for /favicon.ico whatever the page links: both get the icon.
    if (req.method === 'GET' && (path === '/favicon.svg' || path === '/favicon.ico'))
      return send(res, 200, 'image/svg+xml', INSPECTOR_ICON);
    if (req.method === 'GET' && path === '/inspector.js') {
      return send(res, 200, 'text/javascript; charset=utf-8', INSPECTOR_SCRIPT);
    }
    if (req.method === 'GET' && path === '/api/events') {
      return json(res, 200, {
        events: options.state.list(),
        types: options.events,
        api_base: options.apiBase,
        max_events: options.state.maxEvents,
      });
    }
    if (req.method === 'GET' && path === '/api/stream') return stream(res);
    if (req.method === 'POST' && path.startsWith('/api/')) return void act(req, res, path);
    req.resume();
    json(res, req.method === 'GET' || req.method === 'POST' ? 404 : 405, {
      error: { code: 'not_found', message: `No route for ${req.method} ${path}.` },
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of streams) res.end();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
