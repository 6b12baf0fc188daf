// The API reference (`pnpm docs:api`): every public entry point, as each package's `exports` lists it
// (the Node build's `import` target, mapped back to its source file), generated from the doc comments.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const entryPoints = [];
for (const name of readdirSync('packages').sort()) {
  const pkg = JSON.parse(readFileSync(join('packages', name, 'package.json'), 'utf8'));
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    const built = typeof target === 'object' ? target.import?.default : undefined;
    // ./package.json and asset files (a .sql migration) are not modules.
    if (!built?.endsWith('.js')) continue;
    const source = join('packages', name, built.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
    if (!existsSync(source)) throw new Error(`${pkg.name}${subpath.slice(1)}: no source at ${source}`);
    entryPoints.push(source);
  }
}

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  entryPoints,
  entryPointStrategy: 'resolve',
  plugin: ['./typedoc-module-names.mjs'],
  tsconfig: 'tsconfig.json',
  out: 'docs/api/generated',
  name: 'sms-webhooks API reference',
  readme: 'none',
  excludePrivate: true,
  excludeInternal: true,
  // Links to the repository on GitHub, whatever remote (or none) this clone has.
  sourceLinkTemplate: 'https://github.com/sms-webhooks/sms-webhooks/blob/{gitRevision}/{path}#L{line}',
  treatWarningsAsErrors: true,
  validation: { notExported: true, invalidLink: true, rewrittenLink: true, notDocumented: false },
};
