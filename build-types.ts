// Declarations for every package, the second step of `pnpm build` (`tsx build-types.ts`), after each package's
// tsup has written its JavaScript (`dts: false`). One tsc run emits every package's .d.ts (emitDeclarations,
// which api-report.mjs runs too); each package's are then copied into its dist/ beside the JavaScript:
// `.d.ts` for the `import` condition, the same with relative imports ending `.cjs` as `.d.cts` for `require`,
// and for core's Web build (`dist/web/`) a `.d.ts` per Web entry that re-exports its source's. tsup's own
// `dts` built one TypeScript program per package and build, each reading core again: most of the build's
// time (README's "Building").
//
//   tsx build-types.ts   writes packages/*/dist/**/*.d.ts and *.d.cts
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WEB_ENTRIES } from './packages/core/web-platform.js';

const repository = dirname(fileURLToPath(import.meta.url));
const CORE_SRC = join(repository, 'packages/core/src');
const PRIVATE = '@sms-webhooks/internal';

/**
 * Emits the declarations of every package under `root` into `out` (`out/packages/core/src/index.d.ts`);
 * throws with tsc's output. tsc and the Node types are the repository's, wherever `root` is.
 */
export function emitDeclarations(root: string, out: string): void {
  const config = join(out, 'tsconfig.json');
  writeFileSync(
    config,
    JSON.stringify({
      // The workspace's paths: a package's import of another stays `@sms-webhooks/core`, resolved to its sources.
      extends: join(root, 'tsconfig.json'),
      compilerOptions: {
        noEmit: false,
        declaration: true,
        emitDeclarationOnly: true,
        outDir: out,
        rootDir: root,
        typeRoots: [join(repository, 'node_modules/@types')],
        types: ['node'],
      },
      include: [join(root, 'packages/*/src')],
      exclude: ['**/node_modules', '**/dist'],
    }),
  );
  const tsc = spawnSync(
    process.execPath,
    [join(repository, 'node_modules/typescript/bin/tsc'), '-p', config],
    {
      encoding: 'utf8',
    },
  );
  if (tsc.status !== 0) throw new Error(`tsc could not emit the declarations:\n${tsc.stdout}${tsc.stderr}`);
}

/** A `.d.ts` as its `.d.cts`: relative imports (`from './x.js'`, `import("./x.js")`) end in `.cjs`. */
export function toCommonJs(declaration: string): string {
  return declaration.replace(/(\bfrom\s*|\bimport\s*\(\s*)(['"])(\.{1,2}\/[^'"]*?)\.js\2/g, '$1$2$3.cjs$2');
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Copies one package's declarations (`from`, its src/ emitted) into `dist`; returns how many files. */
export function writePackageTypes(from: string, dist: string): number {
  let written = 0;
  for (const file of files(from)) {
    if (!file.endsWith('.d.ts')) continue;
    const text = readFileSync(file, 'utf8');
    const at = join(dist, relative(from, file));
    // Bundled into the JavaScript, never published: a declaration that names it would not resolve.
    if (text.includes(PRIVATE)) throw new Error(`${at} imports ${PRIVATE}, which is never published`);
    mkdirSync(dirname(at), { recursive: true });
    writeFileSync(at, text);
    writeFileSync(at.replace(/\.d\.ts$/, '.d.cts'), toCommonJs(text));
    written += 2;
  }
  return written;
}

/** Core's Web build: `dist/web/adapter/index.d.ts` re-exports `dist/adapter/web.d.ts`, and so on. */
export function writeWebTypes(dist: string): void {
  for (const [name, source] of Object.entries(WEB_ENTRIES)) {
    const at = join(dist, 'web', `${name}.d.ts`);
    const target = join(dist, relative(CORE_SRC, source)).replace(/\.ts$/, '.js');
    let specifier = relative(dirname(at), target).split('\\').join('/');
    if (!specifier.startsWith('.')) specifier = `./${specifier}`;
    mkdirSync(dirname(at), { recursive: true });
    writeFileSync(at, `export * from '${specifier}';\n`);
  }
}

/**
 * Every package's types into its dist/, for the workspace at `root` (default this repository; a test's copy
 * of some packages elsewhere); each package's `exports` types must then exist.
 */
export function buildTypes(root = repository): string {
  const started = Date.now();
  const out = mkdtempSync(join(tmpdir(), 'sms-webhooks-types-'));
  try {
    emitDeclarations(root, out);
    let count = 0;
    const missing: string[] = [];
    for (const dir of readdirSync(join(root, 'packages')).sort()) {
      const pkgDir = join(root, 'packages', dir);
      if (!existsSync(join(pkgDir, 'package.json'))) continue;
      const dist = join(pkgDir, 'dist');
      count += writePackageTypes(join(out, 'packages', dir, 'src'), dist);
      if (dir === 'core') writeWebTypes(dist);
      const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
      const targets = JSON.stringify([pkg.exports, pkg.types, pkg.typesVersions]).match(
        /\.\/dist\/[^"]+\.d\.c?ts/g,
      );
      for (const target of new Set(targets ?? [])) {
        if (!existsSync(join(pkgDir, target))) missing.push(`${pkg.name}: ${target}`);
      }
    }
    if (missing.length > 0)
      throw new Error(`types named in package.json but not built:\n${missing.join('\n')}`);
    return `${count} declaration files in ${((Date.now() - started) / 1000).toFixed(1)} s`;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(buildTypes());
}
