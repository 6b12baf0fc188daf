import type { RunningApp } from './contract.js';
import { RUNTIMES_DIR, runtime } from './runtimes.js';

interface MiniflareInstance {
  dispatchFetch(url: string, init?: RequestInit): Promise<Response>;
  dispose(): Promise<void>;
}

/**
 * An ES-module Worker in workerd, through miniflare (which ships the workerd binary and talks to it
 * over HTTP); `flags` are its compatibility flags, `bindings` its env. `onLog` gets each line the Worker
 * logs (console.log …), else workerd prints them.
 */
export async function startWorker(
  script: string,
  flags: string[],
  bindings: Record<string, string>,
  onLog?: (line: string) => void,
): Promise<RunningApp> {
  runtime('miniflare');
  const { Miniflare } = (await import(`${RUNTIMES_DIR}miniflare/dist/src/index.js`)) as {
    Miniflare: new (options: Record<string, unknown>) => MiniflareInstance;
  };
  const mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: '2026-07-01',
    compatibilityFlags: flags,
    bindings,
    // miniflare checks that this returns nothing.
    ...(onLog && {
      handleStructuredLogs: ({ message }: { message: string }) => {
        onLog(message);
      },
    }),
  });
  return {
    fetch: (path, init) => mf.dispatchFetch(`http://localhost${path}`, init),
    stop: () => mf.dispose(),
  };
}
