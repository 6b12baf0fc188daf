import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { esbuild } from '../runtimes/bundle.js';
import { root } from './consumer.js';

/** The Cloudflare Worker code block of packages/web/README.md, exactly as written there. */
export function readmeWorker(): string {
  const readme = readFileSync(join(root, 'packages/web/README.md'), 'utf8');
  const block = readme
    .split('```ts\n')
    .slice(1)
    .map((part) => part.slice(0, part.indexOf('```')))
    .find((code) => code.startsWith('// src/worker.ts: a Cloudflare Worker'));
  if (block === undefined) throw new Error('packages/web/README.md has no "// src/worker.ts" block');
  return block;
}

/** Wrangler's package conditions, and Vercel's Edge runtime's. */
export const WRANGLER_CONDITIONS = ['workerd', 'worker', 'browser'];
export const EDGE_LIGHT_CONDITIONS = ['edge-light', 'worker', 'browser'];

/**
 * Bundles `entry` (a file in `consumer`) against the packages installed there, resolving package exports
 * under `conditions` as that platform's bundler does. The bundle, and the package files it took in.
 */
export async function bundleFor(
  consumer: string,
  entry: string,
  conditions: string[],
): Promise<{ code: string; inputs: string[] }> {
  const result = (await esbuild.build({
    absWorkingDir: consumer,
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    conditions,
    mainFields: ['browser', 'module', 'main'],
    metafile: true,
    logLevel: 'silent',
  })) as { outputFiles: { text: string }[]; metafile: { inputs: Record<string, unknown> } };
  return { code: result.outputFiles[0]!.text, inputs: Object.keys(result.metafile.inputs) };
}
