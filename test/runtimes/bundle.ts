import { esbuild, ourSource, ourSpecifier } from '@sms-webhooks/test-helpers/node-program';

export { esbuild };

import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WEB_ENTRIES, webPlatform } from '../../packages/core/web-platform.js';

/** @sms-webhooks/* to the TypeScript sources, as vitest.config.ts maps them (core's Web entries for 'web'). */
function sources(platform: 'web' | 'node') {
  return {
    name: 'sms-webhooks-sources',
    setup(build: {
      onResolve(options: { filter: RegExp }, callback: (args: { path: string }) => { path: string }): void;
    }) {
      build.onResolve({ filter: /^@sms-webhooks\// }, ({ path }) => {
        const { pkg, sub } = ourSpecifier(path)!;
        if (platform === 'web' && pkg === 'core') {
          const entry = sub === undefined ? 'index' : sub === 'adapter' ? 'adapter/index' : sub;
          return { path: WEB_ENTRIES[entry as keyof typeof WEB_ENTRIES] };
        }
        return { path: ourSource(path)! };
      });
    },
  };
}

/**
 * One ES module from a fixture (a file of ./fixtures, or an absolute path) and the sources, built as the published package is for that runtime:
 * 'web' with the Web platform (the workerd/edge-light/worker/browser conditions), 'node' with node:crypto
 * (what Node, Bun and Deno resolve).
 */
export async function bundle(
  entry: string,
  platform: 'web' | 'node',
  format: 'esm' | 'iife' = 'esm',
): Promise<string> {
  const result = await esbuild.build({
    entryPoints: [isAbsolute(entry) ? entry : fileURLToPath(new URL(`./fixtures/${entry}`, import.meta.url))],
    bundle: true,
    write: false,
    format,
    target: 'es2022',
    platform: platform === 'web' ? 'neutral' : 'node',
    plugins: platform === 'web' ? [sources(platform), webPlatform] : [sources(platform)],
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}
