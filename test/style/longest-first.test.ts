import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LONGEST_FILES } from '../longest-first.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

// The sequencer's list (vitest.config.ts) orders the run; a renamed or removed file would silently drop
// out of it and run in vitest's order again.
it('names only test files that exist, each once', () => {
  expect(LONGEST_FILES.filter((file) => !file.endsWith('.test.ts') || !existsSync(join(root, file)))).toEqual(
    [],
  );
  expect(new Set(LONGEST_FILES).size).toBe(LONGEST_FILES.length);
});
