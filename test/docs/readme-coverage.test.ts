import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { READMES } from './readmes.js';
import { root } from './run-blocks.js';

const RUNNABLE = /^\s*```(ts|js|sh|bash|shell)\s*$/m;

/**
 * READMEs for the project's own developers, whose blocks are `pnpm <script>` commands that take
 * minutes (benchmarks, soak runs): not run here, but each script they name must exist.
 */
const DEVELOPER_READMES = ['test/bench/README.md', 'test/reliability/README.md'];

const tracked = execFileSync('git', ['ls-files', '*README.md'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((path) => path !== '' && RUNNABLE.test(readFileSync(join(root, path), 'utf8')));

describe('README coverage', () => {
  it('every README with a code block to run is run by readme-examples*.test.ts', () => {
    const covered = new Set(READMES.map((r) => r.path));
    const uncovered = tracked.filter((p) => !covered.has(p) && !DEVELOPER_READMES.includes(p));
    expect(uncovered).toEqual([]);
    expect(tracked.length).toBeGreaterThan(20);
  });

  it.each(DEVELOPER_READMES)('%s names only scripts that exist', (path) => {
    const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts as Record<
      string,
      string
    >;
    const text = readFileSync(join(root, path), 'utf8');
    const named = [...text.matchAll(/^pnpm ([\w:-]+)/gm)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(0);
    for (const script of named) expect(Object.keys(scripts)).toContain(script);
  });
});
