import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InspectorOptions } from './inspector-options.js';
import { inspectorRoutes } from './inspector-routes.js';

/** A running inspector: its page's address, and how to stop it (its event streams end first). */
export interface Inspector {
  url: string;
  close(): Promise<void>;
}

/** Starts the inspector; resolves once it listens. */
export async function startInspector(options: InspectorOptions): Promise<Inspector> {
  let origin = '';
  const streams = new Set<ServerResponse>();
  const server = createServer(inspectorRoutes(options, streams, () => origin));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of streams) res.end();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
