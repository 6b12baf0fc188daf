import { createServer, type IncomingMessage, type Server } from 'node:http';

// A minimal stand-in for @hono/node-server: node:http in, app.fetch, node:http out. On Bun, Deno or
// Cloudflare Workers you export `app` (or app.fetch) instead and need none of this.

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
      // Pausing rather than destroying keeps the socket, so the 413 can still be sent on it.
      open = false;
      req.pause();
    },
  });
}

function toRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const method = req.method ?? 'GET';
  const body = method === 'GET' || method === 'HEAD' ? null : bodyStream(req);
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
  return new Request(url, { method, headers, body, duplex: 'half' } as RequestInit);
}

export function serve(fetch: (request: Request) => Response | Promise<Response>): Server {
  return createServer((req, res) => {
    Promise.resolve()
      .then(() => fetch(toRequest(req)))
      .then(async (response) => {
        res.statusCode = response.status;
        response.headers.forEach((value, name) => {
          res.setHeader(name, value);
        });
        if (!req.complete) res.setHeader('connection', 'close');
        res.end(Buffer.from(await response.arrayBuffer()));
      })
      .catch((error) => {
        console.error('example-hono: request failed', error);
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      });
  });
}
