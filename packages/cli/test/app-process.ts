import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Receiver } from '@sms-webhooks/core';
import { nodeProgram } from '@sms-webhooks/test-helpers/node-program';
import { root } from './spawn-cli.js';

/** A fixture app in its own Node process, its printed JSON lines awaited one key at a time. */
export async function startApp(fixture: string, env: Record<string, string>) {
  const file = fileURLToPath(new URL(`./fixtures/${fixture}`, import.meta.url));
  // Bundled once per test file (test/helpers/node-program.ts): what tsx runs, at a tenth of its CPU.
  const child = spawn(process.execPath, ['--enable-source-maps', await nodeProgram(file)], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  const exited = once(child, 'exit');
  const lines: Record<string, string>[] = [];
  const wakes = new Set<() => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(JSON.parse(line) as Record<string, string>);
    for (const wake of wakes) wake();
  });
  return {
    exited,
    printed: (key: string) =>
      new Promise<string>((resolve, reject) => {
        const look = () => {
          const line = lines.find((l) => key in l);
          if (line) resolve(line[key]!);
        };
        wakes.add(look);
        look();
        void exited.then(() => reject(new Error(`the app exited before printing ${key}:\n${stderr}`)));
      }),
    kill: () => child.kill('SIGKILL'),
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
