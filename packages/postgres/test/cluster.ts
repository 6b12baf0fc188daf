import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@sms-webhooks/test-helpers/free-port';
import pg from 'pg';

/**
 * A throwaway PostgreSQL cluster (initdb in a temp dir, its own free port), for the tests that stop and
 * restart the server: the machine's shared one is left alone. As root, the server runs as the
 * `postgres` user (initdb and postgres refuse root).
 */
export interface Cluster {
  port: number;
  url: string;
  /** Immediate shutdown (as a crash): open connections are cut, nothing is checkpointed. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it for good and removes its directory. */
  destroy(): Promise<void>;
}

function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (existsSync(join(root, v, 'bin', 'initdb'))) return join(root, v, 'bin');
  throw new Error(
    'initdb not found under /usr/lib/postgresql/*/bin: install PostgreSQL (apt-get install postgresql) or set PG_BIN.',
  );
}

function owner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
  return { uid: id('-u'), gid: id('-g') };
}

async function accepting(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => {});
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

export async function startCluster(): Promise<Cluster> {
  const bin = binDir();
  const user = owner();
  const dir = mkdtempSync(join(tmpdir(), 'sms-webhooks-pg-'));
  chmodSync(dir, 0o700);
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  execFileSync(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'],
    {
      ...user,
      stdio: 'ignore',
    },
  );
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    const args = [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
    ];
    const proc = spawn(join(bin, 'postgres'), args, { ...user, stdio: 'ignore' });
    child = proc;
    process.once('exit', () => proc.kill('SIGKILL'));
    await accepting(url, 20_000);
  }

  async function stop(): Promise<void> {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGQUIT'); // immediate shutdown: no checkpoint, recovery on the next start
    await exited;
  }

  await start();
  return {
    port,
    url,
    stop,
    start,
    async destroy() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
