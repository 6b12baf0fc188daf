import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Receiver } from '@sms-webhooks/core';
import { spawnFixture } from '@sms-webhooks/test-helpers/fixture-process';

/** A fixture app in its own Node process (spawnFixture), its printed JSON lines awaited one key at a time. */
export async function startApp(fixture: string, env: Record<string, string>) {
  const app = await spawnFixture(new URL(`./fixtures/${fixture}`, import.meta.url), env);
  return {
    exited: app.exited.then(({ code, signal }) => [code, signal] as const),
    printed: async (key: string) => (await app.printed(key, 60_000))[key] as string,
    kill: () => app.child.kill('SIGKILL'),
  };
}

/** An app on node:http in this process whose receiver the test swaps (a redeploy); closed with `close`. */
export async function receiverServer(first: Receiver) {
  let current = first;
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const out = await current.handle({ rawBody: Buffer.concat(chunks), headers: req.headers });
    res.writeHead(out.status, out.headers).end(out.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    use(receiver: Receiver) {
      current = receiver;
    },
    close: () =>
      new Promise<void>((r) => server.close(() => r())).finally(() => server.closeAllConnections()),
  };
}
