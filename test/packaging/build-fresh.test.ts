/**
 * `pnpm tarballs` packs the build already made when every package's dist/ is newer than its sources and
 * configuration, and builds first otherwise (build-fresh.mjs). Run on a small workspace of its own in a
 * temporary folder, whose `build` script counts its runs: the real packages and their dist/ are not touched.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { root } from './consumer.js';

let ws: string;
const write = (path: string, text: string) => {
  mkdirSync(join(ws, path, '..'), { recursive: true });
  writeFileSync(join(ws, path), text);
};
/** `node build-fresh.mjs` in the workspace: what it printed, and how many builds have run so far. */
const tarballsBuild = () => {
  const output = execFileSync(process.execPath, [join(root, 'build-fresh.mjs')], {
    cwd: ws,
    encoding: 'utf8',
  });
  return { output, builds: readFileSync(join(ws, 'builds.log'), 'utf8').split('\n').filter(Boolean).length };
};
/** Sets a file's modification time to now, as an editor saving it would. */
const touch = (path: string) => {
  const now = new Date();
  utimesSync(join(ws, path), now, now);
};

beforeAll(() => {
  ws = mkdtempSync(join(tmpdir(), 'sms-webhooks-fresh-'));
  write(
    'package.json',
    JSON.stringify({ name: 'fresh', private: true, scripts: { build: 'node build.mjs' } }),
  );
  write('pnpm-workspace.yaml', 'packages:\n  - packages/*\n');
  // What `pnpm build` does to each package, in small: a dist/ written after reading src/.
  write(
    'build.mjs',
    `import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
    for (const dir of ['a', 'b']) {
      mkdirSync('packages/' + dir + '/dist', { recursive: true });
      writeFileSync('packages/' + dir + '/dist/index.js', 'export {};');
      writeFileSync('packages/' + dir + '/dist/index.d.ts', 'export {};');
    }
    appendFileSync('builds.log', 'built\\n');`,
  );
  write('builds.log', '');
  write('tsup.base.ts', 'export {};');
  for (const dir of ['a', 'b']) {
    write(`packages/${dir}/package.json`, JSON.stringify({ name: dir, scripts: { build: 'tsup' } }));
    write(`packages/${dir}/src/index.ts`, 'export {};');
    write(`packages/${dir}/README.md`, '# a package');
  }
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

it('builds when a package has no dist/, and not again while every dist/ is fresh', () => {
  const first = tarballsBuild();
  expect(first.output).toContain('Building, as packages/a has no dist/');
  expect(first.builds).toBe(1);
  const second = tarballsBuild();
  expect(second.output).toContain('packing that build');
  expect(second.builds).toBe(1);
}, 180_000);

it('builds again when a source, a package config or a shared config changed, and only then', () => {
  for (const [changed, builds] of [
    ['packages/b/src/index.ts', 2],
    ['packages/a/package.json', 3],
    ['tsup.base.ts', 4],
  ] as const) {
    touch(changed);
    const after = tarballsBuild();
    expect(after.output, changed).toContain(`Building, as ${changed} is newer than packages/`);
    expect(after.builds, changed).toBe(builds);
    // The build just made is newer than the change: fresh again.
    expect(tarballsBuild().builds, changed).toBe(builds);
  }
}, 180_000);

it('does not build for a change to what is not built (a README)', () => {
  touch('packages/a/README.md');
  const after = tarballsBuild();
  expect(after.output).toContain('packing that build');
  expect(after.builds).toBe(4);
}, 180_000);
