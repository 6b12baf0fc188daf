// Every public entry point, as each package's `exports` lists it (the Node build's `import` target, mapped
// back to its source file), sorted: what the API reference (typedoc.config.mjs) and the API reports
// (api-report.mjs) cover.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * @param {string} root the repository
 * @returns {{ name: string, dir: string, subpath: string, source: string }[]} `@sms-webhooks/core/adapter`,
 *   `core`, `adapter` (empty for the main entry) and `packages/core/src/adapter/index.ts`
 */
export function apiEntryPoints(root = '.') {
  const entries = [];
  for (const dir of readdirSync(join(root, 'packages')).sort()) {
    const pkg = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
    for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
      const built = typeof target === 'object' ? target.import?.default : undefined;
      // ./package.json and asset files (a .sql migration) are not modules.
      if (!built?.endsWith('.js')) continue;
      const source = join('packages', dir, built.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
      if (!existsSync(join(root, source)))
        throw new Error(`${pkg.name}${subpath.slice(1)}: no source at ${source}`);
      entries.push({ name: `${pkg.name}${subpath.slice(1)}`, dir, subpath: subpath.slice(2), source });
    }
  }
  return entries;
}
