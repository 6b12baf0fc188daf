import { createConnection, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  /** `amqp://guest:guest@127.0.0.1:<port>`: the broker, through this proxy. */
  url: string;
  /** The outage: every connection through the proxy is cut, and new ones are refused until `restore()`. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy on a free loopback port in front of the shared broker (127.0.0.1:5672), so a test can take
 * the broker away from its own clients only: the broker itself keeps running for other tests.
 */
export async function startProxy(target = { host: '127.0.0.1', port: 5672 }): Promise<TcpProxy> {
  const pairs = new Set<Socket>();
  let down = false;
  const server = createServer((client) => {
    if (down) return void client.destroy();
    const upstream = createConnection(target);
    pairs.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      pairs.delete(client);
      pairs.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const cut = () => {
    down = true;
    for (const socket of pairs) socket.destroy();
    pairs.clear();
  };
  return {
    url: `amqp://guest:guest@127.0.0.1:${port}`,
    cut,
    restore() {
      down = false;
    },
    close() {
      cut();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
