import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PACKAGES = new URL('../../../packages/', import.meta.url);

/** The file the package's exports give an ESM import of `subpath`, or undefined. */
function exported(pkgUrl, subpath) {
  const { exports } = JSON.parse(readFileSync(new URL('package.json', pkgUrl), 'utf8'));
  let target = exports?.[subpath];
  while (target && typeof target === 'object') target = target.import ?? target.node ?? target.default;
  return typeof target === 'string' ? new URL(target, pkgUrl) : undefined;
}

export async function resolve(specifier, context, nextResolve) {
  const m = /^@sms-webhooks\/([^/]+)(\/.*)?$/.exec(specifier);
  if (!m) return nextResolve(specifier, context);
  const pkgUrl = new URL(`${m[1]}/`, PACKAGES);
  // Not one of the published packages (a private workspace one): as Node and tsx resolve it.
  if (!existsSync(new URL('package.json', pkgUrl))) return nextResolve(specifier, context);
  const url = exported(pkgUrl, m[2] ? `.${m[2]}` : '.');
  if (!url) throw new Error(`${specifier}: no such export in ${fileURLToPath(pkgUrl)}package.json`);
  if (!existsSync(url)) {
    throw new Error(
      `${specifier}: ${fileURLToPath(url)} is missing: run pnpm build first (or pass --from=source to count the TypeScript sources under tsx)`,
    );
  }
  return { url: url.href, format: 'module', shortCircuit: true };
}
