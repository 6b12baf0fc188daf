// `pnpm tarballs` builds only when it must: when every package's dist/ is newer than its sources and build
// configuration (and the workspace's), the build already made is what gets packed. Otherwise `pnpm build`.
//
//   node build-fresh.mjs           builds (pnpm build) unless fresh, in the workspace at the current folder
//   node build-fresh.mjs --check   exits 0 when fresh, 1 (saying why) when a build is needed
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What every package's build reads besides its own folder: shared configuration and the private package. */
const SHARED = [
  'package.json',
  'pnpm-lock.yaml',
  'tsconfig.json',
  'tsconfig.base.json',
  'tsconfig.build.json',
  'tsup.base.ts',
  'build-types.ts',
  'internal/package.json',
  'internal/src',
];

/** Files under `path` (itself when a file), with their modification times; none when it does not exist. */
function files(path) {
  if (!existsSync(path)) return [];
  const stat = statSync(path);
  if (!stat.isDirectory()) return [{ path, mtimeMs: stat.mtimeMs }];
  return readdirSync(path, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .map((file) => ({ path: file, mtimeMs: statSync(file).mtimeMs }));
}

/** A package's build inputs: its src/ and its top-level files but the docs (README, CHANGELOG, LICENSE). */
function inputsOf(pkgDir) {
  const top = readdirSync(pkgDir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && !/\.md$|^LICENSE/.test(entry.name))
    .map((entry) => join(pkgDir, entry.name));
  return [...top, join(pkgDir, 'src')].flatMap(files);
}

const newest = (list) => list.reduce((a, b) => (b.mtimeMs > a.mtimeMs ? b : a));
const oldest = (list) => list.reduce((a, b) => (b.mtimeMs < a.mtimeMs ? b : a));

/**
 * Why the workspace at `root` needs a build (the first package whose dist/ is missing, or older than a
 * source or configuration file), or undefined when every package's dist/ is newer than all of them.
 */
export function staleBuild(root = process.cwd()) {
  const shared = SHARED.flatMap((path) => files(join(root, path)));
  for (const dir of readdirSync(join(root, 'packages')).sort()) {
    const pkgDir = join(root, 'packages', dir);
    if (!existsSync(join(pkgDir, 'package.json'))) continue;
    const built = files(join(pkgDir, 'dist'));
    if (built.length === 0) return `packages/${dir} has no dist/`;
    const input = newest([...shared, ...inputsOf(pkgDir)]);
    const output = oldest(built);
    if (input.mtimeMs >= output.mtimeMs) {
      return `${input.path.slice(root.length + 1)} is newer than packages/${dir}/dist/`;
    }
  }
  return undefined;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = process.cwd();
  const stale = staleBuild(root);
  if (process.argv.includes('--check')) {
    console.log(stale ? `a build is needed: ${stale}` : 'every dist/ is fresh');
    process.exit(stale ? 1 : 0);
  }
  if (!stale) {
    console.log('Every package’s dist/ is newer than its sources and configuration: packing that build.');
  } else {
    console.log(`Building, as ${stale}.`);
    // Under `pnpm tarballs`, the pnpm running this; else the one on PATH.
    const pnpm = process.env.npm_execpath?.includes('pnpm')
      ? [process.execPath, process.env.npm_execpath]
      : ['pnpm'];
    const build = spawnSync(pnpm[0], [...pnpm.slice(1), 'build'], { cwd: root, stdio: 'inherit' });
    process.exit(build.status ?? 1);
  }
}
