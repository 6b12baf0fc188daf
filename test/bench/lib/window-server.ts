/**
 * One HTTP bench server (servers/http-server.ts) in its own process, and load sent to it in runs of
 * fresh signed requests: what the tools that look at a window of requests on a warm server share
 * (allocations.ts, cpu-profile.ts).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ContenderName, Framework } from '../servers/contenders.js';
import { nextMessage } from './child.js';
import { codeFrom, nodeImports } from './code-under-test.js';
import type { LoadRunner } from './http-harness.js';

const SERVER = new URL('../servers/http-server.ts', import.meta.url);

export interface WindowServer {
  child: ChildProcess;
  /** Sends `amount` requests (1 KiB events, 8 connections); throws on any non-2xx, error or time-out. */
  send(amount: number): Promise<void>;
}

/** Starts the server with `node` (its stdout piped when asked, for V8's traces) and waits until it listens. */
export async function startWindowServer(
  framework: Framework,
  contender: ContenderName,
  node: string,
  load: LoadRunner,
  stdout: 'inherit' | 'pipe' = 'inherit',
): Promise<WindowServer> {
  const child = fork(
    fileURLToPath(SERVER),
    [JSON.stringify({ framework, contender, store: 'memory', maxBodyBytes: 1 << 20 })],
    // Ours from the published build unless the tool was given --from=source (lib/code-under-test.ts).
    { execPath: node, execArgv: nodeImports(codeFrom()), stdio: ['ignore', stdout, 'inherit', 'ipc'] },
  );
  const { port } = await nextMessage<{ port: number }>(child, 'ready');
  const url = `http://127.0.0.1:${port}/webhooks`;
  return {
    child,
    async send(amount) {
      for (let sent = 0; sent < amount; sent += 2000) {
        const r = await load.run({
          url,
          amount: Math.min(2000, amount - sent),
          connections: 8,
          bodyBytes: 1024,
        });
        if (r.non2xx || r.errors || r.timeouts) {
          throw new Error(
            `${framework}/${contender}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} time-outs`,
          );
        }
      }
    },
  };
}
