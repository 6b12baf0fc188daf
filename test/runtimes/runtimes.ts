import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where test/runtimes/install.sh (run by .ci/run) puts the runtimes. */
export const RUNTIMES_DIR = fileURLToPath(new URL('../.tmp/runtimes/node_modules/', import.meta.url));

const BINARIES = {
  bun: '@oven/bun-linux-x64/bin/bun',
  deno: '@deno/linux-x64-glibc/deno',
  node22: 'node22/bin/node',
  node24: 'node24/bin/node',
  miniflare: 'miniflare/package.json',
  'edge-runtime': 'edge-runtime/package.json',
} as const;

/**
 * The installed runtime's path. When it is missing (a fresh clone running `pnpm test` without `.ci/run`),
 * install.sh is run first, from the npm registry; a failed install fails the test, it never skips it.
 */
export function runtime(name: keyof typeof BINARIES): string {
  const path = RUNTIMES_DIR + BINARIES[name];
  if (!existsSync(path)) {
    // The stamp says what was installed; with a binary gone it is wrong, so install.sh must not trust it.
    rmSync(`${RUNTIMES_DIR}../installed.txt`, { force: true });
    execFileSync('bash', [fileURLToPath(new URL('./install.sh', import.meta.url))], {
      stdio: 'ignore',
      timeout: 300_000,
    });
  }
  if (!existsSync(path))
    throw new Error(`${name} is not installed: test/runtimes/install.sh did not install it.`);
  return path;
}
