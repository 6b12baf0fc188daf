import type { IncomingMessage, ServerResponse } from 'node:http';

const MAX_BODY = 4096;

/** Sent with every answer: never cached, never framed, nothing loaded but from the inspector itself. */
export const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'self'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
};

/** Answers `status` with `body` of the content `type`, and the security headers. */
export function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type }).end(body);
}

/** Answers `status` with `value` as JSON. */
export const json = (res: ServerResponse, status: number, value: unknown) =>
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));

/** A small JSON object from the request body: anything but an object reads as `{}`; throws past 4 KiB. */
export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
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
