import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { differences, type Files, filesInTree, filesUnder } from './generated-files.js';
import { root } from './run-blocks.js';

// `pnpm docs:api` (typedoc.config.mjs): one Markdown page per public entry point, as each package's `exports`
// lists them, named by the specifier users import, committed in docs/api/; a warning (a broken {@link}, an
// unexported type in a public signature, an export or member without a doc comment) fails it. This generates
// it again and compares it with docs/api/.

vi.setConfig({ testTimeout: 420_000 });

const typedoc = (args: string[]) =>
  spawnSync(process.execPath, [join(root, 'node_modules', 'typedoc', 'bin', 'typedoc'), ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 400_000,
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

/** `docs/api/core/adapter.md` for `@sms-webhooks/core/adapter`. */
const page = (name: string) => `docs/api/${name.replace(/^@sms-webhooks\//, '')}.md`;

const STALE = 'docs/api/ differs from the doc comments: run `pnpm docs:api` and commit docs/api/';

const out = mkdtempSync(join(tmpdir(), 'sms-webhooks-api-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

let generated: Files | undefined;

it('docs/api/ is what the doc comments generate: a page per entry point, no warning', () => {
  const run = typedoc(['--options', 'typedoc.config.mjs', '--out', join(out, 'api')]);
  expect(run.stdout + run.stderr).not.toMatch(/\[warning\]|\[error\]/);
  expect(run.status, run.stdout + run.stderr).toBe(0);
  generated = filesUnder(join(out, 'api'), 'docs/api');
  expect([...generated.keys()].sort()).toEqual(['docs/api/README.md', ...entryPoints().map(page)].sort());
  expect(entryPoints()).toContain('@sms-webhooks/core/adapter');
  expect(generated.get('docs/api/core.md')).toContain('### createReceiver()');
  // The same text on every machine: no absolute path, no date.
  for (const text of generated.values()) {
    expect(text).not.toContain(root);
    expect(text).not.toMatch(/\b20\d\d-\d\d-\d\d\b/);
  }
  expect(differences(generated, filesInTree('docs/api')), STALE).toEqual([]);
});

it('names a changed, a missing and a left-over page', () => {
  expect(generated, 'the reference was generated above').toBeDefined();
  const tree = new Map(generated);
  const core = tree.get('docs/api/core.md')!;
  tree.set('docs/api/core.md', core.replace('### createReceiver()', '### createReceiver() (an old comment)'));
  tree.delete('docs/api/express.md');
  tree.set('docs/api/removed.md', '# gone\n');
  expect(differences(generated!, tree)).toEqual([
    expect.stringMatching(
      /^docs\/api\/core\.md:\d+: is "### createReceiver\(\) \(an old comment\)", generated/,
    ),
    'docs/api/express.md: missing',
    'docs/api/removed.md: no longer generated',
  ]);
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
  expect(run.stdout + run.stderr).toMatch(/\[warning\].*undocumentedExport.*does not have any documentation/);
  expect(run.status).not.toBe(0);
});

it('docs/api.md links every entry point to its page', () => {
  const index = readFileSync(join(root, 'docs', 'api.md'), 'utf8');
  const listed = [
    ...index.matchAll(/^\| `(@sms-webhooks\/[\w/-]+)` +\| \[`[\w/-]+\.md`\]\((api\/[\w/-]+\.md)\) +\|$/gm),
  ];
  expect(listed.map(([, name]) => name).sort()).toEqual(entryPoints());
  for (const [, name, file] of listed) expect(`docs/${file}`).toBe(page(name!));
});
