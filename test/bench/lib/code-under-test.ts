/**
 * Which code of ours a bench process runs: `build`, the published build (packages/<package>/dist, what
 * `pnpm build` writes with tsup and what an application installs), or `source`, the TypeScript sources
 * compiled on the fly by tsx. The two count differently: tsx compiles with esbuild's `keepNames`, which
 * wraps every named function made per request in a `defineProperty` that the published build does not
 * have. Figures are taken on the build; `--from=source` is for trying a change without building.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { arg } from './args.js';

export type CodeFrom = 'build' | 'source';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const HOOKS = fileURLToPath(new URL('./published-build.mjs', import.meta.url));

/** `--from=build` (the default) or `--from=source`. */
export function codeFrom(): CodeFrom {
  const from = arg('from', 'build');
  if (from !== 'build' && from !== 'source') {
    console.error(`--from=${from}: expected build or source`);
    process.exit(2);
  }
  return from;
}

/** The Node options a bench child runs with: tsx for the bench's own TypeScript, and ours from `from`. */
export function nodeImports(from: CodeFrom): string[] {
  return from === 'build' ? ['--import', 'tsx', '--import', HOOKS] : ['--import', 'tsx'];
}

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

/**
 * One line for a run's output: which code, at which commit; for the build, when it was made, and a
 * warning when a package's sources changed after it (a stale dist counts old code).
 */
export function describeCode(from: CodeFrom, packages: readonly string[]): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  const commit = git('rev-parse', '--short', 'HEAD');
  const dirty = git('status', '--porcelain', '--', 'packages').length > 0 ? ' with uncommitted changes' : '';
  if (from === 'source') return `code: TypeScript sources under tsx (keepNames), commit ${commit}${dirty}`;
  const stale: string[] = [];
  let built = Number.POSITIVE_INFINITY;
  for (const name of packages) {
    const dist = join(ROOT, 'packages', name, 'dist');
    let distTime: number;
    try {
      distTime = statSync(join(dist, 'index.js')).mtimeMs;
    } catch {
      throw new Error(`packages/${name}/dist/index.js is missing: run pnpm build (or pass --from=source)`);
    }
    built = Math.min(built, distTime);
    if (newest(join(ROOT, 'packages', name, 'src')) > distTime) stale.push(name);
  }
  const warning = stale.length
    ? `\nWARNING: sources changed after the build in ${stale.join(', ')}: run pnpm build, or the count is of older code`
    : '';
  return `code: the published build (packages/*/dist from pnpm build, built ${new Date(built).toISOString()}), commit ${commit}${dirty}${warning}`;
}
