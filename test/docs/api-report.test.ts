import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { differences, filesInTree, filesUnder } from './generated-files.js';
import { root } from './run-blocks.js';

// `pnpm api:report` (api-report.mjs): API Extractor's report of every public entry point, committed in
// packages/<package>/etc/, so a change to the public surface shows in review. This writes them again into a
// temporary folder and compares.

vi.setConfig({ testTimeout: 420_000 });

const STALE =
  'the public API differs from its committed report: run `pnpm api:report`, review and commit packages/*/etc/';

const out = mkdtempSync(join(tmpdir(), 'sms-webhooks-api-report-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** `packages/core/etc/core-adapter.api.md` for each module subpath of each package's exports. */
function reports(): string[] {
  const paths: string[] = [];
  for (const dir of readdirSync(join(root, 'packages'))) {
    const pkg = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
    for (const [subpath, target] of Object.entries<{ import?: { default?: string } }>(pkg.exports ?? {})) {
      if (!target?.import?.default?.endsWith('.js')) continue;
      const name = [dir, ...subpath.split('/').slice(1)].join('-');
      paths.push(`packages/${dir}/etc/${name}.api.md`);
    }
  }
  return paths.sort();
}

it('every entry point has a report, and the committed reports are the public surface', () => {
  const run = spawnSync(process.execPath, [join(root, 'api-report.mjs'), '--out', out], {
    cwd: root,
    encoding: 'utf8',
    timeout: 400_000,
  });
  expect(run.status, run.stdout + run.stderr).toBe(0);
  const generated = filesUnder(join(out, 'packages'), 'packages');
  expect([...generated.keys()].sort()).toEqual(reports());
  expect(reports()).toContain('packages/core/etc/core-adapter.api.md');
  expect(generated.get('packages/core/etc/core.api.md')).toMatch(/^export function createReceiver/m);
  for (const text of generated.values()) expect(text).not.toContain(root);
  expect(differences(generated, filesInTree('packages/*/etc/*.api.md')), STALE).toEqual([]);
});
