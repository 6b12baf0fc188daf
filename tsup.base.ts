import { defineConfig, type Options } from 'tsup';

// Every package but core (which adds a Web build): ESM and CJS for Node 20. The types for both are not
// tsup's: `pnpm build` writes every package's with one tsc run afterwards (build-types.ts).
// `options` holds what a package does differently, such as its own tsconfig.
export function packageBuild(entry: string[], options: Options = {}) {
  return defineConfig({
    entry,
    format: ['esm', 'cjs'],
    dts: false,
    clean: true,
    target: 'node20',
    platform: 'node',
    splitting: false,
    tsconfig: '../../tsconfig.build.json',
    // Bundled in, never imported from dist/: the private package is not published.
    noExternal: ['@sms-webhooks/internal'],
    ...options,
  });
}
