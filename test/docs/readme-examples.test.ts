import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeBlocks, isProgram } from './markdown-blocks.js';
import { READMES } from './readmes.js';
import { type Background, type BlockResult, root, runBlock, startBlock } from './run-blocks.js';

// Every code block of these READMEs runs as written (or says, in a `<!-- docs-test: … -->` comment above
// it, why not). The blocks of one README run in order, against what readmes.ts sets up. One file, so the
// READMEs that name the same ports (3000, 4010) never run at the same time.

describe.each(READMES)('$path', (readme) => {
  const markdown = readFileSync(join(root, readme.path), 'utf8');
  const blocks = codeBlocks(markdown, readme.path).filter(
    (b) => isProgram(b) && (!readme.sections || readme.sections.includes(b.section)),
  );

  it('has code blocks to run', () => {
    expect(blocks.filter((b) => b.directive.kind !== 'skip').length).toBeGreaterThan(0);
  });

  it('runs every code block as written', async () => {
    const context = await readme.setup();
    const env = { ...context.env };
    const running: Background[] = [];
    const results: BlockResult[] = [];
    let previous = '';
    try {
      for (const block of blocks) {
        const where = `${readme.path}:${block.line}`;
        if (block.directive.kind === 'skip') continue;
        if (block.directive.kind === 'background') {
          const started = await startBlock(block, block.directive.until, env, 30_000);
          running.push(started);
          Object.assign(env, started.groups);
          continue;
        }
        const code = block.directive.kind === 'continues' ? previous + block.code : block.code;
        previous = code;
        const result = await runBlock(block, code, env, 60_000);
        results.push(result);
        expect(result.code, `${where} exited ${result.code}:\n${result.stdout}\n${result.stderr}`).toBe(0);
      }
      await context.check?.(results, env);
      for (const r of running.splice(0)) {
        expect(await r.stop(), `a background block did not stop cleanly on Ctrl-C:\n${r.output()}`).toBe(0);
      }
    } finally {
      await Promise.all(running.map((r) => r.stop()));
      await context.close();
    }
  }, 120_000);
});
