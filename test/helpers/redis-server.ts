import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export interface RedisServer {
  host: string;
  port: number;
  /** `redis://host:port` */
  url: string;
  /** true when REDIS_URL pointed us at a server we do not own: restart() and kill() then throw. */
  external: boolean;
  /** Shuts the server down and waits for it to exit (a no-op for an external server). */
  stop(): Promise<void>;
  /** Starts it again on the same port (after stop() or kill()), waiting until it answers PING. */
  restart(): Promise<void>;
  /** SIGKILL, without waiting: a crash, for fault tests. */
  kill(): void;
}

export interface StartRedisServerOptions {
  /** Ignore REDIS_URL and spawn a local server: for tests that stop or kill it. */
  local?: boolean;
  /** Extra `redis-server` arguments, e.g. ['--maxmemory', '10mb']. */
  args?: string[];
  /** How long to wait for the first PONG. Default 10 s. */
  startTimeoutMs?: number;
}

// 7.0+: the helper passes --enable-debug-command and the cluster test uses CLUSTER ADDSLOTSRANGE.
const INSTALL_HINT =
  'Install Redis 7.0 or newer (Debian/Ubuntu: `apt-get install redis-server`, macOS: `brew install redis`) ' +
  'or set REDIS_URL=redis://host:port to use a running server, or REDIS_SERVER_BIN=/path/to/redis-server.';

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** A port the OS says is free right now (there is a small race until the server binds it). */
export function getFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function findRedisServer(): string {
  const explicit = process.env.REDIS_SERVER_BIN;
  const candidates = explicit
    ? [explicit]
    : (process.env.PATH ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, 'redis-server'));
  for (const file of candidates) {
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here; keep looking
    }
  }
  throw new Error(
    explicit
      ? `REDIS_SERVER_BIN=${explicit} is not an executable redis-server. ${INSTALL_HINT}`
      : `No redis-server binary found on PATH; the Redis tests need a real server. ${INSTALL_HINT}`,
  );
}

/** Resolves true once the server answers PING with PONG, false on any error or after timeoutMs. */
export function ping(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    let data = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
      if (data.includes('\r\n')) done(data.startsWith('+PONG'));
    });
  });
}

function external(url: string): RedisServer {
  const parsed = new URL(url);
  const refuse = (what: string): never => {
    throw new Error(
      `${what}() needs a redis-server this test started, but REDIS_URL points at ${parsed.host}. ` +
        'Fault tests start their own server: unset REDIS_URL, or call startRedisServer({ local: true }).',
    );
  };
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 6379),
    url,
    external: true,
    stop: async () => {},
    restart: async () => refuse('restart'),
    kill: () => refuse('kill'),
  };
}

function waitForExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Starts a throwaway `redis-server` on a free port, persisting nothing, in its own temp dir.
 * With REDIS_URL set (and `local` not asked for) it returns that server instead.
 * No binary is an error that says how to install one: the Redis suites never skip.
 */
export async function startRedisServer(options: StartRedisServerOptions = {}): Promise<RedisServer> {
  if (process.env.REDIS_URL && !options.local) return external(process.env.REDIS_URL);
  const bin = findRedisServer();
  const host = '127.0.0.1';
  const dir = mkdtempSync(join(tmpdir(), 'sms-webhooks-redis-'));
  const timeoutMs = options.startTimeoutMs ?? 10_000;
  let child: ChildProcess | undefined;
  let port = 0;

  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const c of running) c.kill('SIGKILL');
    });
  }

  async function spawnOn(p: number): Promise<void> {
    const args = [
      '--port',
      String(p),
      '--bind',
      host,
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--enable-debug-command',
      'local',
      ...(options.args ?? []),
    ];
    const proc = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk: Buffer) => {
      if (output.length < 8192) output += chunk.toString();
    };
    proc.stdout?.on('data', collect);
    proc.stderr?.on('data', collect);
    running.add(proc);
    proc.once('exit', () => running.delete(proc));
    child = proc;

    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (proc.exitCode !== null || proc.signalCode !== null) {
        // An older redis-server refuses --enable-debug-command here: say which version the tests need.
        throw new Error(
          `redis-server exited during start-up on port ${p} (the tests need Redis 7.0+):\n${output.slice(-2000)}`,
        );
      }
      if (await ping(host, p, 250)) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    proc.kill('SIGKILL');
    throw new Error(`redis-server did not answer PING on port ${p} within ${timeoutMs} ms:\n${output}`);
  }

  async function stop(): Promise<void> {
    const proc = child;
    if (!proc) return;
    child = undefined;
    // With --save "" SIGTERM shuts down at once and writes nothing.
    proc.kill('SIGTERM');
    const killer = setTimeout(() => proc.kill('SIGKILL'), 5_000);
    await waitForExit(proc);
    clearTimeout(killer);
  }

  // Another process can grab the free port before redis binds it; try a few.
  for (let attempt = 1; ; attempt++) {
    port = await getFreePort();
    try {
      await spawnOn(port);
      break;
    } catch (error) {
      await stop();
      if (attempt >= 3) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }

  return {
    host,
    port,
    url: `redis://${host}:${port}`,
    external: false,
    async stop() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
    async restart() {
      await stop();
      mkdirSync(dir, { recursive: true });
      await spawnOn(port);
    },
    kill() {
      // child stays set, so restart()/stop() wait for the exit before reusing the port.
      child?.kill('SIGKILL');
    },
  };
}
