import { createServer, type IncomingHttpHeaders } from 'node:http';

export interface LocalApp {
  requests: { headers: IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

/**
 * The "your app" of the READMEs, at the address they name (http://localhost:3000/webhooks): it answers
 * 200 and keeps every request, so the README's check can verify each one with the secret it printed.
 */
export async function startLocalApp(port = 3000): Promise<LocalApp> {
  const requests: LocalApp['requests'] = [];
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
    server.once('error', (e) =>
      reject(new Error(`the README examples need port ${port} free for "your app": ${(e as Error).message}`)),
    );
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
