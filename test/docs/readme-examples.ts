import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runtime } from '../runtimes/runtimes.js';
import { defaultPorts, fixedPorts, holdPorts } from './fixed-ports.js';
import { codeBlocks, isProgram, type Runtime } from './markdown-blocks.js';
import { READMES, type ReadmeUnderTest } from './readmes.js';
import { type Background, type BlockResult, installedFor, root, runBlock, startBlock } from './run-blocks.js';

/**
 * Every code block of these READMEs runs as written (or says, in a `<!-- docs-test: … -->` comment above
 * it, why not). The blocks of one README run in order, against what readmes.ts sets up. The entries are
 * run from three files (readme-examples-*.test.ts), so that vitest's workers run them side by side: each
 * waits on the processes its blocks start far more than it computes. Every block listens on a free port;
 * the usual busy ports are held while an entry runs (taken either by this file or by another one).
 */
export function describeReadmeExamples(readmes: ReadmeUnderTest[]): void {
  if (readmes.length === 0) throw new Error('describeReadmeExamples: no README entries to run');
  describe.each(readmes)('$path', describeReadme);
}

/**
 * A README split into entries by `sections` (two sections that name one port) is still run whole: every
 * block sits under a heading some entry names, and every heading an entry names exists.
 */
export function describeReadmeCoverage(): void {
  describe.each([...new Set(READMES.map((r) => r.path))])('%s, across its entries', describeEntries);
}

function describeEntries(path: string): void {
  it('has every code block in some entry', () => {
    const entries = READMES.filter((r) => r.path === path);
    const blocks = codeBlocks(readFileSync(join(root, path), 'utf8'), path).filter(isProgram);
    const missed = blocks.filter((b) => !entries.some((r) => !r.sections || r.sections.includes(b.section)));
    expect(missed.map((b) => `${path}:${b.line} under "${b.section}"`)).toEqual([]);
    const headings = new Set(blocks.map((b) => b.section));
    for (const section of entries.flatMap((r) => r.sections ?? [])) expect(headings).toContain(section);
  });
}

function describeReadme(readme: ReadmeUnderTest): void {
  const markdown = readFileSync(join(root, readme.path), 'utf8');
  const blocks = codeBlocks(markdown, readme.path).filter(
    (b) => isProgram(b) && (!readme.sections || readme.sections.includes(b.section)),
  );

  it('has code blocks to run', () => {
    expect(blocks.filter((b) => b.directive.kind !== 'skip').length).toBeGreaterThan(0);
  });

  // A block listens on, and sends to, the port its entry passes in (`PORT` with the documented default),
  // so the README runs beside a developer's own app on 3000, and two runs share one machine.
  it('names no fixed port, or says why in fixedPort', () => {
    const named = blocks
      .filter((b) => b.directive.kind !== 'skip')
      .flatMap((b) => fixedPorts(b.code).map((port) => `${readme.path}:${b.line} names port ${port}`));
    if (readme.fixedPort)
      expect(named, `fixedPort is stale, no block names a port: remove it`).not.toEqual([]);
    else expect(named).toEqual([]);
  });

  // A block for another runtime: installed first (from the npm registry when missing, as the runtime
  // tests do), so its start-up time-out is not spent installing.
  const runtimes = new Set(blocks.map((b) => ('on' in b.directive ? b.directive.on : 'node')));
  const binaries = { bun: 'bun', deno: 'deno', workerd: 'miniflare' } as const;
  beforeAll(() => {
    for (const on of runtimes) if (on !== 'node') runtime(binaries[on]);
  }, 300_000);

  it('runs every code block as written', async () => {
    // With the usual busy ports taken: an entry that listens on a fixed port fails here, not on a
    // developer's machine.
    const release = readme.fixedPort
      ? async () => {}
      : await holdPorts([3000, 4010, ...blocks.flatMap((b) => defaultPorts(b.code))]);
    const context = await readme.setup().catch(async (error) => {
      await release();
      throw error;
    });
    const env = { ...context.env };
    const running: Background[] = [];
    const results: BlockResult[] = [];
    const dir = installedFor(readme.installed ?? dirname(readme.path));
    let previous = '';
    let previousOn: Runtime = 'node';
    try {
      for (const block of blocks) {
        const where = `${readme.path}:${block.line}`;
        const { directive } = block;
        if (directive.kind === 'skip') continue;
        const on: Runtime = directive.kind === 'continues' ? previousOn : directive.on;
        const code = directive.kind === 'continues' ? previous + block.code : block.code;
        const until = directive.kind === 'run' ? undefined : directive.until;
        if (until) {
          const started = await startBlock(block, code, until, env, 60_000, { dir, on });
          running.push(started);
          Object.assign(env, started.groups);
          continue;
        }
        previous = code;
        previousOn = on;
        const result = await runBlock(block, code, env, 60_000, { dir, on });
        results.push(result);
        expect(result.code, `${where} exited ${result.code}:\n${result.stdout}\n${result.stderr}`).toBe(0);
      }
      await context.check?.(results, env, running);
      for (const r of running.splice(0)) {
        const ended = await r.stop();
        const clean = readme.endsByCtrlC ? [0, 'SIGINT'] : [0];
        expect(clean, `${readme.path}:${r.block.line} ended (${ended}) on Ctrl-C:\n${r.output()}`).toContain(
          ended,
        );
      }
    } finally {
      await Promise.all(running.map((r) => r.stop()));
      await context.close();
      await release();
    }
  }, 240_000);
}
