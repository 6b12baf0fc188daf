import { createConnection, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  /** `amqp://guest:guest@127.0.0.1:<port>`: the broker, through this proxy. */
  url: string;
  /** The outage: every connection through the proxy is cut, and new ones are refused until `restore()`. */
  cut(): void;
  restore(): void;
  /**
   * From the first client bytes that contain `marker` on, nothing the broker sends reaches the clients
   * (`replies`: the broker still gets those bytes, so a publish is stored and its confirm never arrives),
   * or nothing from the clients reaches the broker either (`both`: the publish never arrives). Resolves,
   * for `both`, once the marker was seen; for `replies`, once the broker answered after it (the confirm,
   * held here), so the broker has the whole message. The marker is looked for across chunk boundaries.
   */
  holdFrom(marker: string, what: 'replies' | 'both'): Promise<void>;
  close(): Promise<void>;
}

/**
 * A TCP proxy on a free loopback port in front of the shared broker (127.0.0.1:5672), so a test can take
 * the broker away from its own clients only: the broker itself keeps running for other tests.
 */
export async function startProxy(target = { host: '127.0.0.1', port: 5672 }): Promise<TcpProxy> {
  const pairs = new Set<Socket>();
  let down = false;
  let watch: { marker: Buffer; what: 'replies' | 'both'; seen: () => void } | undefined;
  let held: 'replies' | 'both' | undefined;
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
    let tail = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      if (watch !== undefined && held === undefined) {
        const seen = Buffer.concat([tail, chunk]);
        if (seen.includes(watch.marker)) {
          held = watch.what;
          if (held === 'both') watch.seen();
        } else tail = seen.subarray(Math.max(0, seen.length - watch.marker.length + 1));
      }
      if (held !== 'both') upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (held === undefined) client.write(chunk);
      else if (held === 'replies') watch?.seen();
    });
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
    holdFrom(marker, what) {
      return new Promise((resolve) => {
        watch = { marker: Buffer.from(marker), what, seen: resolve };
      });
    },
    close() {
      cut();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
