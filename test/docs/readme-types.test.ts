import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { codeBlocks } from './markdown-blocks.js';
import { READMES } from './readmes.js';
import { STORE_READMES } from './readmes-stores.js';
import { root } from './run-blocks.js';

// The READMEs' TypeScript is what a reader pastes into a project, where tsc checks it: readme-examples
// runs each block but compiles it without a type check, so here every `ts` block of the READMEs in
// readmes.ts (a continued block with the ones before it) is checked by tsc with the repository's strict
// options, as one program. Blocks for Bun and Deno are left out: their globals have no types installed here.

const dir = join(root, 'test', '.tmp', 'docs-types');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const ours = READMES.filter((r) => !STORE_READMES.includes(r));

it('every ts block of the READMEs in readmes.ts type-checks', () => {
  rmSync(dir, { recursive: true, force: true });
  let files = 0;
  for (const path of new Set(ours.map((r) => r.path))) {
    const installed = ours.find((r) => r.path === path && r.installed)?.installed ?? dirname(path);
    const out = join(dir, path.replace(/\W/g, '-'));
    mkdirSync(out, { recursive: true });
    if (existsSync(join(root, installed, 'node_modules'))) {
      symlinkSync(join(root, installed, 'node_modules'), join(out, 'node_modules'));
    }
    let previous = '';
    for (const block of codeBlocks(readFileSync(join(root, path), 'utf8'), path)) {
      const { directive } = block;
      if (!['ts', 'typescript'].includes(block.lang) || directive.kind === 'skip') continue;
      if ('on' in directive && (directive.on === 'bun' || directive.on === 'deno')) continue;
      const code = directive.kind === 'continues' ? previous + block.code : block.code;
      previous = code;
      // `export {}`: a block without imports is a module too, as the file a reader saves it in would be.
      writeFileSync(join(out, `line-${block.line}.ts`), `${code}\nexport {};\n`);
      files++;
    }
  }
  expect(files).toBeGreaterThan(20);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: '../../../tsconfig.json',
      // Only Node's types: a README block has no test-runner globals.
      compilerOptions: { types: ['node'] },
      include: ['**/*.ts'],
      exclude: ['**/node_modules'],
    }),
  );
  let output = '';
  try {
    execFileSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { cwd: root, encoding: 'utf8' });
  } catch (error) {
    output = (error as { stdout: string }).stdout;
  }
  // The blocks' own errors: the packages' sources they import are the repository-wide tsc's to check.
  const diagnostics = output.split(/\n(?=\S)/).filter((d) => d.startsWith('test/.tmp/docs-types/'));
  expect(diagnostics).toEqual([]);
}, 420_000);
