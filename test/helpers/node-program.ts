import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const PROGRAMS = join(REPO, 'test', '.tmp', 'programs');

interface Esbuild {
  build(options: Record<string, unknown>): Promise<{ outputFiles: { text: string }[] }>;
}
/** esbuild as tsup (a dev dependency) has it: the same bundler that makes the published builds. */
export const esbuild = createRequire(createRequire(import.meta.url).resolve('tsup'))('esbuild') as Esbuild;

/**
 * The source file of `@sms-webhooks/<package>[/<entry>]`, as vitest.config.ts and tsconfig.json map it:
 * a package's entry, a sub-entry that is a file (core's store.ts) or a folder (core's adapter/), the
 * private package in internal/, and these helpers. Undefined for a name that is none of ours.
 */
export function ourSource(specifier: string): string | undefined {
  const ours = ourSpecifier(specifier);
  if (ours === undefined) return undefined;
  const { pkg, sub } = ours;
  if (pkg === 'internal') return join(REPO, 'internal/src/index.ts');
  if (pkg === 'test-helpers') return join(REPO, 'test/helpers', `${sub ?? 'index'}.ts`);
  const file = join(REPO, 'packages', pkg, 'src', `${sub}.ts`);
  if (sub !== undefined && existsSync(file)) return file;
  return join(REPO, 'packages', pkg, 'src', sub ? `${sub}/` : '', 'index.ts');
}

/** `{ pkg: 'core', sub: 'adapter' }` for `@sms-webhooks/core/adapter`; undefined for a name not ours. */
export function ourSpecifier(specifier: string): { pkg: string; sub: string | undefined } | undefined {
  const match = /^@sms-webhooks\/([a-z-]+)(?:\/([a-z-]+))?$/.exec(specifier);
  return match ? { pkg: match[1]!, sub: match[2] } : undefined;
}

interface ResolveArgs {
  path: string;
  importer: string;
  kind: string;
  resolveDir: string;
  pluginData?: unknown;
}
interface PluginBuild {
  onResolve(
    options: { filter: RegExp },
    callback: (args: ResolveArgs) => Promise<{ path: string; external?: boolean } | undefined>,
  ): void;
  onLoad(
    options: { filter: RegExp },
    callback: (args: { path: string }) => { contents: string; loader: string } | undefined,
  ): void;
  resolve(
    path: string,
    options: Omit<ResolveArgs, 'path' | 'importer'>,
  ): Promise<{ path: string; errors: unknown[] }>;
}

/**
 * What `node --import tsx` does to a program, as a bundle: our packages from their sources; every other
 * package left an import of the very file Node loads from the importing file's folder (so the bundle may
 * be written anywhere, and a package imported by a source and by the program is one module); each of our
 * files keeps its own `import.meta.url`.
 */
const asTsxRuns = {
  name: 'as-tsx-runs',
  setup(build: PluginBuild) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      const ours = ourSource(args.path);
      if (ours) return { path: ours };
      if (args.pluginData === 'as-tsx-runs') return undefined;
      if (args.path.startsWith('node:')) return { path: args.path, external: true };
      const found = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        pluginData: 'as-tsx-runs',
      });
      const path = found.errors.length === 0 && isAbsolute(found.path) ? found.path : args.path;
      return { path, external: true };
    });
    build.onLoad({ filter: /\.[mc]?ts$/ }, ({ path }) => {
      // Handed back either way, so esbuild does not read the file a second time.
      const text = readFileSync(path, 'utf8');
      if (!text.includes('import.meta.')) return { contents: text, loader: 'ts' };
      const url = pathToFileURL(path).href;
      const contents = text
        .replaceAll('import.meta.url', JSON.stringify(url))
        .replaceAll('import.meta.filename', JSON.stringify(path))
        .replaceAll('import.meta.dirname', JSON.stringify(fileURLToPath(new URL('.', url)).slice(0, -1)));
      return { contents, loader: 'ts' };
    });
  },
};

/**
 * Bundles the program at `entry` (TypeScript or JavaScript) with our sources into `outdir` and returns
 * the file to run (`outdir/main.mjs`): what `node --import tsx <entry>` runs, compiled by the same esbuild,
 * but without a loader that resolves and compiles each of a few hundred modules in every process (0.7 s
 * to 1.3 s of CPU each, against about 0.1 s). A module loaded by `import()` stays a module of its own,
 * loaded then, with the packages it imports: an instrumentation that patches a framework as it loads
 * (OpenTelemetry's) must be in place before.
 */
export async function bundleForNode(entry: string, outdir: string): Promise<string> {
  await esbuild.build({
    entryPoints: { main: entry },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    target: 'node20',
    platform: 'node',
    // Node's conditions, not esbuild's 'module'.
    conditions: ['node', 'import'],
    mainFields: ['main'],
    sourcemap: 'inline',
    plugins: [asTsxRuns],
    logLevel: 'silent',
  });
  return join(outdir, 'main.mjs');
}

const programs = new Map<string, Promise<string>>();

/**
 * The program at `entry` (a path or file URL) bundled once per test process, under test/.tmp/programs:
 * run it as `node --enable-source-maps <it>` (or fork it) where a test would run `node --import tsx <entry>`.
 */
export function nodeProgram(entry: string | URL): Promise<string> {
  const path = entry instanceof URL ? fileURLToPath(entry) : entry;
  let program = programs.get(path);
  if (!program) {
    const outdir = join(PROGRAMS, `${relative(REPO, path).replace(/[\\/]/g, '-')}-${process.pid}`);
    mkdirSync(PROGRAMS, { recursive: true });
    program = bundleForNode(path, outdir);
    programs.set(path, program);
  }
  return program;
}
