/**
 * Instructions per request on a bench server's main thread, counted by valgrind's callgrind: a figure
 * that does not move with what else the machine is doing. Used by test/bench/instructions.ts (the http
 * suite's servers) and packages/otel/test/bench-instructions.ts (the otel suite's).
 */
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nextMessage, stopChild } from './child.js';
import type { LoadRunner } from './http-harness.js';
import { median } from './stats.js';

const CHUNK = 200;

/** Exits with a message saying how to install valgrind when it is missing. */
export function requireValgrind(): void {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    console.error('valgrind not found on PATH: install it (Debian/Ubuntu: apt-get install valgrind).');
    process.exit(2);
  }
}

/** The main thread's instruction total in dump number `dump` (1, 2, …) of a run with --separate-threads=yes. */
export function mainThreadInstructions(dir: string, dump: number): number {
  const file = readdirSync(dir).find((f) => f.endsWith(`.${dump}-01`));
  if (!file) throw new Error(`no main-thread dump ${dump} in ${dir}`);
  const total = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, file), 'utf8'));
  if (!total) throw new Error(`no instruction total in ${file}`);
  return Number(total[1]);
}

/**
 * Forks `script` (a child speaking lib/child.ts's IPC messages) under callgrind, each thread counted
 * apart, writing its dumps to `dir`; `nodeArgs` go to Node before the script.
 */
export function forkUnderCallgrind(
  script: string,
  args: string[],
  dir: string,
  nodeArgs: string[],
): ChildProcess {
  return fork(script, args, {
    execPath: 'valgrind',
    execArgv: [
      '--tool=callgrind',
      '-q',
      '--separate-threads=yes',
      `--callgrind-out-file=${join(dir, 'cg')}`,
      ...nodeArgs,
    ],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
}

export interface InstructionRun {
  /** A bench server speaking the 'ready' IPC message with its port (lib/child.ts). */
  server: URL;
  /** Its one argument: the JSON config. */
  config: unknown;
  /** Names the run in errors. */
  label: string;
  load: LoadRunner;
  warmup: number;
  /** Requests per counted window. */
  requests: number;
  /**
   * Counted windows, one after another on the same server; the figure is their median. A major GC or a
   * deoptimisation falls into one window or another, and moved a single 2,000-request count by up to 10%.
   * Default 5.
   */
  windows?: number;
  /** The Node binary to run the server with; default the one running this script. */
  node?: string;
  /** Its `--import` options (lib/code-under-test.ts): default tsx alone, ours from the sources. */
  imports?: string[];
  /** Keep the callgrind dumps in this directory (for callgrind_annotate) instead of deleting them. */
  keepDir?: string;
}

/**
 * Main-thread instructions per request to the server's /webhooks after `warmup` requests: the median of
 * `windows` counts of `requests` each.
 */
export async function instructionsPerRequest(run: InstructionRun): Promise<number> {
  return median(await instructionsPerWindow(run));
}

/** Main-thread instructions per request in each of the `windows` counts, in order. */
export async function instructionsPerWindow(run: InstructionRun): Promise<number[]> {
  const dir = run.keepDir ?? mkdtempSync(join(tmpdir(), 'sms-webhooks-callgrind-'));
  const child = forkUnderCallgrind(fileURLToPath(run.server), [JSON.stringify(run.config)], dir, [
    run.node ?? process.execPath,
    ...(run.imports ?? ['--import', 'tsx']),
  ]);
  try {
    // Node and tsx start about 50 times slower under valgrind; on a loaded machine, that can take long.
    const { port } = await nextMessage<{ port: number }>(child, 'ready', 30 * 60_000);
    const url = `http://127.0.0.1:${port}/webhooks`;
    // The load runner signs a run's requests before it sends them, and a server under valgrind on a
    // busy machine may take minutes over a few thousand: in runs of CHUNK each signature is fresh
    // (well inside the receiver's 300 s tolerance) when its request arrives.
    // A starved server (load average 15 and more beside it) now and then drops a connection: the warm-up
    // sends that run of requests again, a counted window is counted again from zero (at most twice each,
    // and said on stderr), so a long run is not lost for it.
    const send = async (amount: number, warmup: boolean) => {
      let sent = 0;
      let failures = 0;
      while (sent < amount) {
        const r = await run.load.run({
          url,
          amount: Math.min(CHUNK, amount - sent),
          connections: 8,
          bodyBytes: 1024,
        });
        if (r.non2xx || r.errors || r.timeouts) {
          const codes = r.errorCodes?.length ? ` (${r.errorCodes.join(', ')})` : '';
          const message = `${run.label}: ${r.non2xx} non-2xx, ${r.errors} errors${codes}, ${r.timeouts} time-outs`;
          if (!warmup || ++failures > 2) throw new Error(message);
          console.error(`${message} in the warm-up: sent again`);
          continue;
        }
        sent += r.requests;
      }
      return sent;
    };
    // Long enough for the JIT to settle: optimised code is what serves real traffic.
    await send(run.warmup, true);
    const perRequest: number[] = [];
    let recounts = 0;
    for (let window = 1; window <= (run.windows ?? 5); ) {
      execFileSync('callgrind_control', ['--zero', String(child.pid)], { stdio: 'ignore' });
      let requests: number;
      try {
        requests = await send(run.requests, false);
      } catch (error) {
        if (++recounts > 2) throw error;
        console.error(`${(error as Error).message} in window ${window}: counted again`);
        continue;
      }
      execFileSync('callgrind_control', ['--dump', String(child.pid)], { stdio: 'ignore' });
      perRequest.push(mainThreadInstructions(dir, window) / requests);
      window++;
    }
    return perRequest;
  } finally {
    await stopChild(child);
    if (run.keepDir === undefined) rmSync(dir, { recursive: true, force: true });
  }
}
