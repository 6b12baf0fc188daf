import type { LoadResult } from '../load/load-runner.js';
import { type RunningServer, serverStats } from './http-harness.js';

/** What went wrong in a load run (not how fast it was), or undefined when nothing did. */
export function loadProblem(label: string, r: LoadResult): string | undefined {
  if (!(r.non2xx || r.errors || r.timeouts || r.reused)) return undefined;
  return `${label}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} time-outs, ${r.reused} reused ids`;
}

/** Every request sent must have reached a handler once: proves the ids were unique and nothing was ignored. */
export async function handledProblem(
  label: string,
  server: RunningServer,
  sent: number,
): Promise<string | undefined> {
  const { accepted } = await serverStats(server);
  return accepted === sent ? undefined : `${label}: sent ${sent}, handled ${accepted}`;
}
