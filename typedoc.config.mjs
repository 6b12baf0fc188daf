// The API reference (`pnpm docs:api`): one Markdown page per public entry point (api-entry-points.mjs), named
// by the specifier users import, generated from the doc comments into docs/api/ and committed, so a reader
// opens it on GitHub. test/docs/api-reference.test.ts generates it again and fails when docs/api/ differs.
import { apiEntryPoints } from './api-entry-points.mjs';

/** @type {Partial<import('typedoc').TypeDocOptions & import('typedoc-plugin-markdown').PluginOptions>} */
export default {
  entryPoints: apiEntryPoints().map((entry) => entry.source),
  entryPointStrategy: 'resolve',
  plugin: ['./typedoc-module-names.mjs', 'typedoc-plugin-markdown'],
  tsconfig: 'tsconfig.json',
  out: 'docs/api',
  name: 'sms-webhooks API reference',
  readme: 'none',
  excludePrivate: true,
  excludeInternal: true,
  // The same pages from the same comments on every machine and commit: no "Defined in" line, whose line
  // numbers would make every edit above an export a change to the reference.
  disableSources: true,
  // docs/api/core.md, docs/api/core/adapter.md: one page per entry point, paths without the scope.
  outputFileStrategy: 'modules',
  excludeScopesInPaths: true,
  hidePageHeader: true,
  useCodeBlocks: true,
  sanitizeComments: true,
  treatWarningsAsErrors: true,
  validation: { notExported: true, invalidLink: true, rewrittenLink: true, notDocumented: false },
};
