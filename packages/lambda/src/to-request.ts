import { Buffer } from 'node:buffer';
import type { HttpRequestParts } from './lambda-event.js';

// Only handleWebRequest reads it, and it never looks at the URL.
const URL_BASE = 'https://lambda.invalid/';

function toHeaders(list: HttpRequestParts['headers']): Headers {
  const headers = new Headers();
  for (const [name, value] of list) {
    try {
      headers.append(name, value);
    } catch {
      // A name or value HTTP cannot carry (the source already parsed the request, so only a hand-made
      // event has one): left out, so a signature header like that is answered 400 signature_missing.
    }
  }
  return headers;
}

/** The event as a Web `Request`, with the body's exact bytes (base64 decoded when the source encoded it). */
export function toRequest(parts: HttpRequestParts): Request {
  const headers = toHeaders(parts.headers);
  if (parts.method.toUpperCase() === 'POST') {
    const text = parts.body ?? '';
    const body = parts.isBase64Encoded ? Buffer.from(text, 'base64') : text;
    return new Request(URL_BASE, { method: 'POST', headers, body });
  }
  // No body: Request refuses one on GET and HEAD. Core answers every method but POST 405 from the
  // method alone; one Request cannot be made with (CONNECT, TRACE, an empty name) still gets that 405.
  try {
    return new Request(URL_BASE, { method: parts.method, headers });
  } catch {
    return new Request(URL_BASE, { method: 'GET', headers });
  }
}
