import { defineConfig } from 'tsup';
import { WEB_ENTRIES, webPlatform } from './web-platform.js';

// The types are not tsup's: `pnpm build` writes them with one tsc run afterwards (build-types.ts), the
// Web build's as re-exports of the same declarations.
const shared = {
  dts: false,
  // Only this package's sources: with none set, the program takes in every package's dist/ mid-build.
  tsconfig: 'tsconfig.build.json',
  splitting: true,
  // Bundled in, never imported from dist/: the private package is not published.
  noExternal: ['@sms-webhooks/internal'],
} as const;

export default defineConfig([
  // Node (and Bun, Deno): node:crypto's synchronous HMAC, the fast path.
  {
    ...shared,
    entry: [
      'src/index.ts',
      'src/adapter/index.ts',
      'src/store.ts',
      'src/queue.ts',
      'src/instrumentation.ts',
      'src/testing/index.ts',
    ],
    format: ['esm', 'cjs'],
    // The two builds run at once: this one must not clean the other's output.
    clean: ['!web/**'],
    target: 'node20',
    platform: 'node',
  },
  // Workers, Vercel Edge, browsers (the workerd, edge-light, worker and browser conditions): Web APIs only,
  // no node:* import anywhere in it. Its ./adapter has no Node entry, so it has its own types.
  {
    ...shared,
    entry: WEB_ENTRIES,
    outDir: 'dist/web',
    clean: true,
    format: ['esm'],
    target: 'es2022',
    platform: 'neutral',
    esbuildPlugins: [webPlatform],
  },
]);
