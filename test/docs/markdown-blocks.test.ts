import { codeBlocks, isProgram } from './markdown-blocks.js';

describe('codeBlocks', () => {
  const markdown = [
    '# Title',
    '```sh',
    'echo run',
    '```',
    '## Use',
    '<!-- docs-test: skip installs from the registry -->',
    '```sh',
    'npm install x',
    '```',
    '<!-- docs-test: background until /^ready (?<PORT>\\d+)$/ -->',
    '````ts',
    'console.log("```")',
    '````',
    '<!-- docs-test: continues -->',
    '```ts',
    'more()',
    '```',
    '```json',
    '{}',
    '```',
  ].join('\n');

  it('reads every fence with its language, line, section and directive', () => {
    const blocks = codeBlocks(markdown);
    expect(blocks.map((b) => [b.lang, b.line, b.section, b.directive.kind])).toEqual([
      ['sh', 2, 'Title', 'run'],
      ['sh', 7, 'Use', 'skip'],
      ['ts', 11, 'Use', 'background'],
      ['ts', 15, 'Use', 'continues'],
      ['json', 18, 'Use', 'run'],
    ]);
    expect(blocks[2]!.code).toBe('console.log("```")\n');
    const background = blocks[2]!.directive;
    expect(background.kind === 'background' && background.until.exec('ready 4010')?.groups).toEqual({
      PORT: '4010',
    });
    expect(blocks.map(isProgram)).toEqual([true, true, true, true, false]);
  });

  it.each([
    ['<!-- docs-test: skip -->', /needs a reason/],
    ['<!-- docs-test: background forever -->', /background until \/regex\//],
    ['<!-- docs-test: sometimes -->', /unknown docs-test directive/],
  ])('refuses %s with the file and line', (comment, message) => {
    expect(() => codeBlocks(`${comment}\n\`\`\`sh\nx\n\`\`\``, 'X.md')).toThrow(message);
    expect(() => codeBlocks(`${comment}\n\`\`\`sh\nx\n\`\`\``, 'X.md')).toThrow(/X\.md:2/);
  });
});
