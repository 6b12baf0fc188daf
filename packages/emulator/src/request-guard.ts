import type { IncomingMessage } from 'node:http';
import { ApiError } from './api-error.js';
import { isLoopbackHost } from './validate-webhook.js';

/**
 * What keeps a web page the developer visits away from the emulator (which signs real deliveries to
 * their app): a `Host` that is not loopback means DNS rebinding, a foreign `Origin` means a cross-site
 * request, and requiring `application/json` on the emulator's own POST routes forces a browser to ask
 * first (a CORS preflight, which the emulator never grants) instead of sending a "simple" text/plain POST.
 */
export function checkRequestSource(req: IncomingMessage, boundToLoopback: boolean): void {
  const host = req.headers.host;
  if (boundToLoopback && !(host !== undefined && isLoopbackHost(hostnameOf(`http://${host}`) ?? ''))) {
    throw new ApiError(
      403,
      'host_not_allowed',
      `The emulator listens on a loopback address and answers only requests for localhost, 127.0.0.1 or [::1], not ${JSON.stringify(host ?? '')}. Listen on another host to serve other names.`,
    );
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !originAllowed(origin, host)) {
    throw new ApiError(
      403,
      'origin_not_allowed',
      `Requests from web pages at ${JSON.stringify(origin)} are refused: only loopback or same-origin pages may call the emulator.`,
    );
  }
}

/** The media type is checked, not the body: an empty `redeliver` POST needs it too. */
export function requireJson(req: IncomingMessage): void {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new ApiError(
      415,
      'unsupported_media_type',
      'Send Content-Type: application/json to the /_emulator routes (curl: -H "content-type: application/json").',
    );
  }
}

function originAllowed(origin: string, host: string | undefined): boolean {
  const hostname = hostnameOf(origin);
  if (hostname === undefined) return false; // `null` (a sandboxed frame, a file: page) or garbage
  if (isLoopbackHost(hostname)) return true;
  return host !== undefined && new URL(origin).host === host.toLowerCase();
}

function hostnameOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.hostname : undefined;
  } catch {
    return undefined;
  }
}
