import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, validationError } from './api-error.js';

/** Request bodies of this API are tiny; anything bigger is a mistake, not a webhook. */
export const MAX_REQUEST_BYTES = 64 * 1024;

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) {
      throw new ApiError(
        413,
        'payload_too_large',
        `Request bodies are limited to ${MAX_REQUEST_BYTES} bytes.`,
      );
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The path of the request target, or undefined for a target that is no URL at all (`GET http://[`):
 * the caller answers that 404 like an unknown path. It never throws: it runs before the router's error
 * handling, where a throw once crashed the whole emulator. Origin-form targets are resolved against a fixed
 * origin so `//host/x` stays a path instead of naming a host.
 */
export function requestPath(req: IncomingMessage): string | undefined {
  const target = req.url ?? '/';
  try {
    return new URL(target.startsWith('/') ? `http://emulator${target}` : target).pathname;
  } catch {
    return undefined;
  }
}

/** An empty body reads as `undefined`; anything else must be a JSON object. */
export async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const text = await readBody(req);
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw validationError([{ field: 'body', message: 'must be valid JSON' }]);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw validationError([{ field: 'body', message: 'must be a JSON object' }]);
  }
  return value as Record<string, unknown>;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (body === undefined) {
    res.writeHead(status, headers).end();
    return;
  }
  const text = JSON.stringify(body);
  res
    .writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(text)),
      ...headers,
    })
    .end(text);
}
