// API reports (`pnpm api:report`): API Extractor's `<package>[-<subpath>].api.md` for every public entry point
// (api-entry-points.mjs), in packages/<package>/etc/, committed so that every change to the public surface
// shows in review. test/docs/api-report.test.ts writes them again elsewhere and fails when they differ.
//
// API Extractor reads declarations, not sources: one tsc run emits every package's .d.ts into a temporary
// folder (faster than the packages' tsup builds, and the same on every machine), each package's imports of
// another (`@sms-webhooks/core`) stay imports of that package, and one TypeScript program serves every entry.
// That run is `pnpm build`'s own (build-types.ts's emitDeclarations), loaded through tsx: the reports are of
// the declarations the packages ship.
//
//   node api-report.mjs [--out <folder>]   writes <folder>/packages/<package>/etc/*.api.md (default: here)
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CompilerState, Extractor, ExtractorConfig } from '@microsoft/api-extractor';
import { tsImport } from 'tsx/esm/api';
import { apiEntryPoints } from './api-entry-points.mjs';

const { emitDeclarations } = await tsImport('./build-types.ts', import.meta.url);

const root = dirname(fileURLToPath(import.meta.url));

/** `@sms-webhooks/core` for `@sms-webhooks/core/adapter`. */
const packageName = (entry) => entry.name.split('/').slice(0, 2).join('/');

/** `core-adapter` for `@sms-webhooks/core/adapter`: the report's file name without `.api.md`. */
export const reportName = (entry) => [entry.dir, ...entry.subpath.split('/').filter(Boolean)].join('-');

/**
 * Writes every entry point's report under `out` (`out/packages/core/etc/core-adapter.api.md`) and returns
 * their paths relative to `out`, sorted. Throws with tsc's or API Extractor's messages when either fails.
 */
export function writeApiReports(out = root) {
  const entries = apiEntryPoints(root);
  const tmp = mkdtempSync(join(tmpdir(), 'sms-webhooks-api-report-'));
  try {
    const dts = join(tmp, 'dts');
    mkdirSync(dts);
    emitDeclarations(root, dts);

    const declarationOf = (entry) => join(dts, entry.source.replace(/\.ts$/, '.d.ts'));
    // Each package's declarations as an installed package (node_modules/@sms-webhooks/core, its `exports`
    // pointing at them), so that another package's import of it is reported as an import, as a user sees it.
    for (const dir of new Set(entries.map((entry) => entry.dir))) {
      const mine = entries.filter((entry) => entry.dir === dir);
      const exports = Object.fromEntries(
        mine.map((entry) => [
          entry.subpath ? `./${entry.subpath}` : '.',
          {
            types: `./${relative(join(dts, 'packages', dir), declarationOf(entry))
              .split('\\')
              .join('/')}`,
          },
        ]),
      );
      writeFileSync(
        join(dts, 'packages', dir, 'package.json'),
        JSON.stringify({ name: packageName(mine[0]), type: 'module', exports }),
      );
      const installed = join(tmp, 'node_modules', packageName(mine[0]));
      mkdirSync(dirname(installed), { recursive: true });
      symlinkSync(join(dts, 'packages', dir), installed, 'junction');
    }
    const configs = entries.map((entry) =>
      ExtractorConfig.prepare({
        configObjectFullPath: undefined,
        // The emitted package's: the report then names its files from there (src/receiver/receiver.d.ts).
        packageJsonFullPath: join(dts, 'packages', entry.dir, 'package.json'),
        configObject: {
          projectFolder: root,
          mainEntryPointFilePath: declarationOf(entry),
          compiler: {
            overrideTsconfig: {
              compilerOptions: {
                target: 'ES2022',
                module: 'NodeNext',
                moduleResolution: 'NodeNext',
                lib: ['ES2023', 'DOM'],
                strict: true,
                skipLibCheck: true,
                typeRoots: [join(root, 'node_modules/@types')],
                types: ['node'],
              },
              files: [declarationOf(entry)],
            },
          },
          apiReport: {
            enabled: true,
            reportFileName: reportName(entry),
            reportFolder: join(out, 'packages', entry.dir, 'etc'),
            reportTempFolder: join(tmp, 'report-temp'),
            includeForgottenExports: false,
          },
          docModel: { enabled: false },
          dtsRollup: { enabled: false },
          tsdocMetadata: { enabled: false },
          newlineKind: 'lf',
          messages: {
            compilerMessageReporting: { default: { logLevel: 'error' } },
            extractorMessageReporting: {
              // What a reviewer should see (an unexported type in a public signature) goes into the report.
              default: { logLevel: 'warning', addToApiReportFile: true },
              // Release tags (@public, @beta) are not used here: every export is public.
              'ae-missing-release-tag': { logLevel: 'none' },
              // Shown as "(undocumented)" on the item itself; pnpm docs:api fails on a missing comment.
              'ae-undocumented': { logLevel: 'none' },
              // A type in a public signature that users cannot import: an error (below), unless another
              // entry point of the same package exports it (`Receiver` in /adapter's signatures is
              // `import type { Receiver } from '@sms-webhooks/core'`).
              'ae-forgotten-export': { logLevel: 'warning', addToApiReportFile: false },
            },
            // The doc comments are TypeDoc's (pnpm docs:api checks their links), not TSDoc's stricter syntax.
            tsdocMessageReporting: { default: { logLevel: 'none' } },
          },
        },
      }),
    );
    // A report whose entry point is gone goes with it.
    for (const dir of readdirSync(join(root, 'packages'))) {
      const etc = join(out, 'packages', dir, 'etc');
      if (!existsSync(etc)) continue;
      for (const file of readdirSync(etc)) if (file.endsWith('.api.md')) rmSync(join(etc, file));
    }
    const compilerState = CompilerState.create(configs[0], {
      additionalEntryPoints: entries.map(declarationOf),
    });
    const problems = [];
    const written = [];
    // The names each entry point exports, to tell a type another entry exports from one no entry does.
    const checker = compilerState.program.getTypeChecker();
    const exportedBy = entries.map((entry) => {
      const file = compilerState.program.getSourceFile(declarationOf(entry));
      const module = file && checker.getSymbolAtLocation(file);
      return new Set(module ? checker.getExportsOfModule(module).map((symbol) => symbol.name) : []);
    });
    const siblingExports = (i, name) =>
      entries.some((entry, j) => j !== i && entry.dir === entries[i].dir && exportedBy[j].has(name));
    for (const [i, config] of configs.entries()) {
      mkdirSync(join(out, 'packages', entries[i].dir, 'etc'), { recursive: true });
      const result = Extractor.invoke(config, {
        localBuild: true,
        compilerState,
        messageCallback: (message) => {
          const forgotten =
            message.messageId === 'ae-forgotten-export' && /^The symbol "([^"]+)"/.exec(message.text)?.[1];
          if (forgotten && siblingExports(i, forgotten)) {
            message.handled = true;
            return;
          }
          if (forgotten) {
            problems.push(
              `${entries[i].name}: ${message.formatMessageWithLocation(root)} (export it, type-only, from the entry point users import, or keep it out of the public signature)`,
            );
          } else if (
            message.category !== 'console' &&
            (message.logLevel === 'error' || message.logLevel === 'warning')
          ) {
            problems.push(`${entries[i].name}: ${message.formatMessageWithLocation(root)}`);
          }
          message.handled = true;
        },
      });
      if (!result.succeeded) problems.push(`${entries[i].name}: API Extractor failed`);
      // A warning not attached to an item is listed with its place in the declarations: the file says
      // where, a line number would change with every comment above it.
      const report = readFileSync(config.reportFilePath, 'utf8');
      writeFileSync(config.reportFilePath, report.replace(/^(\/\/ \S+\.d\.ts):\d+:\d+ - /gm, '$1 - '));
      written.push(relative(out, config.reportFilePath).split('\\').join('/'));
    }
    if (problems.length > 0) throw new Error(`API Extractor:\n${problems.join('\n')}`);
    return written.sort();
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--out');
  const out = at === -1 ? root : resolve(process.argv[at + 1]);
  const started = Date.now();
  const written = writeApiReports(out);
  console.log(
    `${written.length} API reports in ${relative(process.cwd(), out) || '.'} (${Date.now() - started} ms)`,
  );
}
