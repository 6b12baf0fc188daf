import { createServer } from 'node:net';

/**
 * A port nothing listens on right now, for a program a README block starts on the port it is given
 * (`PORT`, read with the README's default), so the README tests pass beside a developer's own app on 3000.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
