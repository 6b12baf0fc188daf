import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordingApp {
  /** http://127.0.0.1:<port>/webhooks */
  url: string;
  /** Each request's headers and body, in order of arrival. */
  requests: { headers: IncomingHttpHeaders; body: string }[];
  /** The bodies, parsed. */
  // biome-ignore lint/suspicious/noExplicitAny: delivery bodies are read field by field in assertions
  json(): any[];
  close(): Promise<void>;
}

/** A webhook endpoint that answers every request 200 `{"received":true}` and keeps it as received. */
export async function recordingApp(port = 0): Promise<RecordingApp> {
  const requests: RecordingApp['requests'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      requests.push({ headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    requests,
    json: () => requests.map((r) => JSON.parse(r.body)),
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
