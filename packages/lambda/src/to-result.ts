import { STATUS_CODES } from 'node:http';
import type { HttpRequestParts, LambdaHttpResult } from './lambda-event.js';

/** Core's answer in the shape the event's source reads back; its bodies are always JSON text. */
export async function toResult(response: Response, parts: HttpRequestParts): Promise<LambdaHttpResult> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = await response.text();
  const statusCode = response.status;
  if (parts.source !== 'alb') return { statusCode, headers, body, isBase64Encoded: false };
  const statusDescription = `${statusCode} ${STATUS_CODES[statusCode] ?? ''}`.trimEnd();
  if (!parts.multiValue) return { statusCode, statusDescription, headers, body, isBase64Encoded: false };
  // With multi-value headers on, an ALB reads `multiValueHeaders` and ignores `headers`.
  const multiValueHeaders = Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, [value]]),
  );
  return { statusCode, statusDescription, multiValueHeaders, body, isBase64Encoded: false };
}
