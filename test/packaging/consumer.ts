import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));
export const bin = (name: string) => join(root, 'node_modules', '.bin', name);

export const run = (cmd: string, args: string[], cwd = root) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 240_000 });

// Under `npx pnpm …` there is no global pnpm: reuse the one running this script when there is one.
export const pnpm = (args: string[], cwd = root) =>
  process.env.npm_execpath?.includes('pnpm')
    ? run(process.execPath, [process.env.npm_execpath, ...args], cwd)
    : run('pnpm', args, cwd);

/** The tarball `pnpm tarballs` wrote for packages/<dir> (workspace:^ ranges already versions). */
export function tarball(dir: string): string {
  const { name, version } = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
  return join(root, 'tarballs', `${name.replace('@', '').replace('/', '-')}-${version}.tgz`);
}

function link(target: string, at: string): void {
  mkdirSync(dirname(at), { recursive: true });
  symlinkSync(realpathSync(target), at, 'dir');
}

/**
 * Installs a packed workspace package into `consumer/node_modules` the way npm lays out a tarball,
 * without a registry: CI has none, and `npm install --offline` cannot fetch third-party dependencies.
 * The tarball is unpacked as is; each dependency its packed package.json declares (other than our own
 * packages, installed from their tarballs alongside) is linked from the copy the lockfile installed for
 * that package, nested under it so an undeclared import cannot be satisfied by a neighbour's dependency.
 * Peer dependencies are linked at the top, as the consumer's own, from the workspace root.
 */
export function installTarball(consumer: string, dir: string, tgz: string): void {
  const modules = join(consumer, 'node_modules');
  const pkg = JSON.parse(run('tar', ['-xzOf', tgz, 'package/package.json'])) as {
    name: string;
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  const into = join(modules, pkg.name);
  mkdirSync(into, { recursive: true });
  run('tar', ['-xzf', tgz, '-C', into, '--strip-components=1']);
  for (const dep of Object.keys(pkg.dependencies ?? {})) {
    if (dep.startsWith('@sms-webhooks/')) continue;
    const from = [join(root, 'packages', dir, 'node_modules', dep), join(root, 'node_modules', dep)].find(
      (p) => existsSync(p),
    );
    if (!from) throw new Error(`${pkg.name} depends on ${dep}, which the workspace has not installed`);
    link(from, join(into, 'node_modules', dep));
  }
  for (const peer of Object.keys(pkg.peerDependencies ?? {})) {
    if (peer.startsWith('@sms-webhooks/') || existsSync(join(modules, peer))) continue;
    link(join(root, 'node_modules', peer), join(modules, peer));
  }
}
