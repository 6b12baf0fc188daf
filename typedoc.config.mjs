// The API reference (`pnpm docs:api`): one Markdown page per public entry point (api-entry-points.mjs), named
// by the specifier users import, generated from the doc comments into docs/api/ and committed, so a reader
// opens it on GitHub. test/docs/api-reference.test.ts generates it again and fails when docs/api/ differs.
import { readFileSync } from 'node:fs';
import { apiEntryPoints } from './api-entry-points.mjs';

const packageName = (dir) => JSON.parse(readFileSync(`${dir}/package.json`, 'utf8')).name;

/** @type {Partial<import('typedoc').TypeDocOptions & import('typedoc-plugin-markdown').PluginOptions>} */
export default {
  entryPoints: apiEntryPoints().map((entry) => entry.source),
  entryPointStrategy: 'resolve',
  plugin: ['./typedoc-module-names.mjs', 'typedoc-plugin-markdown'],
  tsconfig: 'tsconfig.docs.json',
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
  validation: { notExported: true, invalidLink: true, rewrittenLink: true, notDocumented: true },
  // An export without a doc comment is a warning, so an error: every function, class, interface, type,
  // constant, method and accessor of every package (TypeDoc checks only the root package's unless told).
  // Properties are not required yet: the members of inline object types (`{ action: 'created' }`) have none.
  packagesRequiringDocumentation: [
    packageName('.'),
    ...[...new Set(apiEntryPoints().map((entry) => entry.dir))].map((dir) => packageName(`packages/${dir}`)),
  ],
  requiredToBeDocumented: [
    'Enum',
    'EnumMember',
    'Variable',
    'Function',
    'Class',
    'Interface',
    'TypeAlias',
    'Method',
    'Accessor',
  ],
  // Made by Nest's ConfigurableModuleBuilder, documented on SmsWebhooksModule itself.
  intentionallyNotDocumented: [
    '@sms-webhooks/nestjs.SmsWebhooksModule.forRoot',
    '@sms-webhooks/nestjs.SmsWebhooksModule.forRootAsync',
  ],
};
