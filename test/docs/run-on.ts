import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from '../runtimes/bundle.js';
import { RUNTIMES_DIR, runtime } from '../runtimes/runtimes.js';

// `run-on.ts <bun|deno|workerd> <file>`: runs a README block on the runtime it is written for, the one
// test/runtimes/install.sh installs. The block is bundled with the sources as that runtime resolves the
// packages (Bun and Deno: the Node build; workerd: the Web build), as test/runtimes does with its fixtures.
// A Worker is served as `wrangler dev` serves one: bindings from the SMS_* environment variables (its
// .dev.vars), and a `Ready on http://localhost:<port>` line once it answers.

const [on, file] = process.argv.slice(2) as [string, string];
const fixtures = fileURLToPath(new URL('../runtimes/fixtures/', import.meta.url));
const code = await bundle(relative(fixtures, file), on === 'workerd' ? 'web' : 'node');

if (on === 'workerd') {
  runtime('miniflare');
  const { Miniflare } = (await import(`${RUNTIMES_DIR}miniflare/dist/src/index.js`)) as {
    Miniflare: new (options: Record<string, unknown>) => { ready: Promise<URL>; dispose(): Promise<void> };
  };
  const bindings = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => name.startsWith('SMS_')),
  );
  const mf = new Miniflare({
    modules: true,
    script: code,
    compatibilityDate: '2026-07-01',
    bindings,
    host: '127.0.0.1',
    port: 0,
  });
  const url = await mf.ready;
  console.log(`Ready on http://localhost:${url.port}`);
  // Ctrl-C reaches workerd too (one process group). Miniflare's own handler would exit 130 at once; a
  // Worker has no shutdown of its own to run, so disposing is all that is left, and then this ends.
  process.removeAllListeners('SIGINT');
  process.once('SIGINT', () => void mf.dispose().finally(() => process.exit(0)));
} else {
  const bundled = `${file}.mjs`;
  writeFileSync(bundled, code);
  const [binary, args, env] =
    on === 'bun'
      ? [runtime('bun'), ['run', bundled], {}]
      : [
          runtime('deno'),
          ['run', '--allow-net', '--allow-env', bundled],
          { DENO_DIR: join(RUNTIMES_DIR, '..', 'deno-dir'), DENO_NO_UPDATE_CHECK: '1' },
        ];
  const child = spawn(binary, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  // Ctrl-C reaches the whole process group: the program handles it, and its exit code is this one's.
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => {});
  child.on('exit', (exit, signal) => process.exit(exit ?? (signal ? 130 : 1)));
}
