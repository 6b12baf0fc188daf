import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/longest-first.js';

const packages = fileURLToPath(new URL('./packages/', import.meta.url));
const helpers = fileURLToPath(new URL('./test/helpers/', import.meta.url));
const internal = fileURLToPath(new URL('./internal/src/index.ts', import.meta.url));

// Tests run against the TypeScript sources, not dist/, so no build is needed before `vitest`.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@sms-webhooks\/core\/(testing|adapter)$/, replacement: `${packages}core/src/$1/index.ts` },
      {
        find: /^@sms-webhooks\/core\/(store|queue|instrumentation)$/,
        replacement: `${packages}core/src/$1.ts`,
      },
      // What only our packages share: a private workspace package, bundled into each build, never published.
      { find: /^@sms-webhooks\/internal$/, replacement: internal },
      // The tests' shared helpers: a private workspace package in test/helpers, not under packages/.
      { find: /^@sms-webhooks\/test-helpers$/, replacement: `${helpers}index.ts` },
      { find: /^@sms-webhooks\/test-helpers\/([a-z-]+)$/, replacement: `${helpers}$1.ts` },
      { find: /^@sms-webhooks\/([a-z-]+)$/, replacement: `${packages}$1/src/index.ts` },
    ],
  },
  test: {
    globals: true,
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**', 'test/.tmp/**'],
    // One more worker than cores (vitest's default is one fewer): most files spend their time waiting on
    // sockets, child processes, Redis, PostgreSQL and RabbitMQ, so on CI's two cores one file at a time
    // left the CPU half idle. A test's time-out is a hang detector: with files side by side, a child
    // process's start-up on a busy machine takes seconds, so the default is a minute.
    maxWorkers: availableParallelism() + 1,
    sequence: { sequencer: LongestFirst },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // CI reads the pass/fail counts for its closing line from this report (VITEST_REPORT names another
    // for each of its Node 22 and 24 runs).
    reporters: process.env.CI
      ? ['default', ['json', { outputFile: process.env.VITEST_REPORT ?? '.vitest-report.json' }]]
      : ['default'],
  },
});
