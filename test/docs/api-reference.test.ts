import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './run-blocks.js';

// `pnpm docs:api` (typedoc.config.mjs): one page per public entry point, as each package's `exports` lists
// them, named by the specifier users import; a warning (a broken {@link}, an unexported type in a public
// signature) fails it. `.ci/run` runs it too, right after the install.

vi.setConfig({ testTimeout: 180_000 });

const typedoc = (args: string[]) =>
  spawnSync(process.execPath, [join(root, 'node_modules', 'typedoc', 'bin', 'typedoc'), ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 170_000,
  });

/** `@sms-webhooks/core/adapter` for each module subpath of each package's exports. */
function entryPoints(): string[] {
  const names: string[] = [];
  for (const dir of readdirSync(join(root, 'packages'))) {
    const pkg = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
    for (const [subpath, target] of Object.entries<{ import?: { default?: string } }>(pkg.exports ?? {})) {
      if (target?.import?.default?.endsWith('.js')) names.push(`${pkg.name}${subpath.slice(1)}`);
    }
  }
  return names.sort();
}

const out = mkdtempSync(join(tmpdir(), 'sms-webhooks-api-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

it('documents every entry point of every package, without a warning', () => {
  const run = typedoc(['--options', 'typedoc.config.mjs', '--out', join(out, 'api')]);
  expect(run.stdout + run.stderr).not.toMatch(/\[warning\]|\[error\]/);
  expect(run.status, run.stdout + run.stderr).toBe(0);
  const pages = readdirSync(join(out, 'api', 'modules')).sort();
  expect(pages).toEqual(
    entryPoints()
      .map((name) => `${name.replace(/[@/]/g, '_')}.html`)
      .sort(),
  );
  expect(entryPoints()).toContain('@sms-webhooks/core/adapter');
  const core = readFileSync(join(out, 'api', 'modules', '_sms-webhooks_core.html'), 'utf8');
  expect(core).toContain('createReceiver');
});

it('fails on a warning', () => {
  const run = typedoc([
    '--options',
    'typedoc.config.mjs',
    '--entryPoints',
    'test/docs/fixtures/api-warning.ts',
    '--out',
    join(out, 'warning'),
  ]);
  expect(run.stdout + run.stderr).toMatch(/\[warning\].*NoSuchThing/);
  expect(run.status).not.toBe(0);
});

it('docs/api.md lists every entry point', () => {
  const page = readFileSync(join(root, 'docs', 'api.md'), 'utf8');
  const listed = [...page.matchAll(/^\| `(@sms-webhooks\/[\w/-]+)` +\| `modules\/([\w-]+\.html)` +\|$/gm)];
  expect(listed.map(([, name]) => name).sort()).toEqual(entryPoints());
  for (const [, name, file] of listed) expect(file).toBe(`${name!.replace(/[@/]/g, '_')}.html`);
});
