import type { IncomingMessage, ServerResponse } from 'node:http';
import { isLoopbackHost } from '@sms-webhooks/emulator';
import { act } from './inspector-actions.js';
import { json, SECURITY_HEADERS, send } from './inspector-http.js';
import type { InspectorOptions } from './inspector-options.js';
import { INSPECTOR_ICON, INSPECTOR_PAGE, INSPECTOR_SCRIPT, INSPECTOR_STYLE } from './page.js';

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

/**
 * The inspector's request handler: the page and its files, the event list and stream, the buttons.
 * `origin` is read per request (known once the server listens); `streams` holds the open event streams.
 */
export function inspectorRoutes(
  options: InspectorOptions,
  streams: Set<ServerResponse>,
  origin: () => string,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const denied = refusal(req, origin());
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
    if (req.method === 'GET' && path === '/api/stream') return stream(options, streams, res);
    if (req.method === 'POST' && path.startsWith('/api/')) return void act(options, req, res, path);
    req.resume();
    json(res, req.method === 'GET' || req.method === 'POST' ? 404 : 405, {
      error: { code: 'not_found', message: `No route for ${req.method} ${path}.` },
    });
  };
}

function stream(options: InspectorOptions, streams: Set<ServerResponse>, res: ServerResponse): void {
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
