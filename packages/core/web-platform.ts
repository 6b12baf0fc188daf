import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const CORE = dirname(fileURLToPath(import.meta.url));
const PLATFORM_DIR = resolve(CORE, 'src/base/platform');

/** The Web build's entry for each subpath: its `./adapter` leaves out the Node entry. */
export const WEB_ENTRIES = {
  index: resolve(CORE, 'src/index.ts'),
  'adapter/index': resolve(CORE, 'src/adapter/web.ts'),
  store: resolve(CORE, 'src/store.ts'),
  queue: resolve(CORE, 'src/queue.ts'),
  instrumentation: resolve(CORE, 'src/instrumentation.ts'),
};

/** The part of esbuild's plugin API this uses (typed here: esbuild is tsup's dependency, not ours). */
interface PluginBuild {
  onResolve(
    options: { filter: RegExp },
    callback: (args: { path: string; resolveDir: string }) => { path: string } | undefined,
  ): void;
}

/**
 * The esbuild plugin that makes the Web build: `src/base/platform/index.ts` imports './node.js'
 * (node:crypto, Buffer), and here it gets './web.ts' (Web Crypto, Uint8Array) instead. The one difference
 * between the builds; tsup.config.ts and the runtime tests (test/runtimes) both use it.
 */
export const webPlatform = {
  name: 'sms-webhooks-web-platform',
  setup(build: PluginBuild): void {
    build.onResolve({ filter: /^\.\/node\.js$/ }, (args) =>
      resolve(args.resolveDir) === PLATFORM_DIR ? { path: resolve(PLATFORM_DIR, 'web.ts') } : undefined,
    );
  },
};
