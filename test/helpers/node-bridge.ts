import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/**
 * The request body as a Web stream that only pulls from the socket when read. Cancelling it pauses the
 * request rather than destroying the socket, so the 413 can still be written back on it.
 */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let open = true;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      req.on('data', (chunk: Buffer) => {
        if (!open) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.once('end', () => {
        if (open) controller.close();
        open = false;
      });
      req.once('error', (error) => {
        if (open) controller.error(error);
        open = false;
      });
      req.pause();
    },
    pull() {
      req.resume();
    },
    cancel() {
      open = false;
      req.pause();
    },
  });
}

export function toRequest(req: IncomingMessage, origin: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const method = req.method ?? 'GET';
  const body = method === 'GET' || method === 'HEAD' ? null : bodyStream(req);
  return new Request(new URL(req.url ?? '/', origin), {
    method,
    headers,
    body,
    duplex: 'half',
  } as RequestInit);
}

export async function writeResponse(
  res: ServerResponse,
  response: Response,
  req: IncomingMessage,
): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => {
    res.setHeader(name, value);
  });
  // The body was not read to its end (413): do not keep a half-read connection alive.
  if (!req.complete) res.setHeader('connection', 'close');
  res.end(Buffer.from(await response.arrayBuffer()));
}

/** node:http → `fetch(request)` → node:http, for running a Web handler (or Hono's app.fetch) on Node. */
export function nodeListener(fetch: (request: Request) => Response | Promise<Response>): RequestListener {
  return (req, res) => {
    const origin = `http://${req.headers.host ?? 'localhost'}`;
    Promise.resolve()
      .then(() => fetch(toRequest(req, origin)))
      .then((response) => writeResponse(res, response, req))
      .catch(() => {
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      });
  };
}
