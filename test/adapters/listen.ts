import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AdapterServer } from '@sms-webhooks/core/testing';

/** Listens on 127.0.0.1 and a free port; close() also drops kept-alive and half-sent connections. */
export async function listen(server: Server, path: string): Promise<AdapterServer & { origin: string }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: `${origin}${path}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
