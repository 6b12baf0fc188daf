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

  it('reads a fence indented under a list item, without the indentation', () => {
    const blocks = codeBlocks(
      ['- a point:', '', '  ```ts', '  if (x) {', '    y();', '', '  }', '  ```'].join('\n'),
    );
    expect(blocks.map((b) => [b.lang, b.line, b.code])).toEqual([['ts', 3, 'if (x) {\n  y();\n\n}\n']]);
  });

  it.each([
    ['', { kind: 'run', on: 'node' }],
    ['<!-- docs-test: on bun -->', { kind: 'run', on: 'bun' }],
    [
      '<!-- docs-test: background on deno until /^up$/ -->',
      { kind: 'background', until: /^up$/, on: 'deno' },
    ],
    [
      '<!-- docs-test: background on workerd until /x/ -->',
      { kind: 'background', until: /x/, on: 'workerd' },
    ],
    ['<!-- docs-test: continues background until /started/ -->', { kind: 'continues', until: /started/ }],
  ])('reads %j', (comment, directive) => {
    expect(codeBlocks(`${comment}\n\`\`\`ts\nx\n\`\`\``)[0]!.directive).toEqual(directive);
  });

  it.each([
    ['<!-- docs-test: skip -->', /needs a reason/],
    ['<!-- docs-test: on python -->', /a block runs on node, bun, deno, workerd/],
    ['<!-- docs-test: on workerd -->', /background on workerd until/],
    ['<!-- docs-test: until /x/ -->', /"until" goes with "background"/],
    ['<!-- docs-test: continues on bun -->', /leave out "on"/],
    ['<!-- docs-test: background forever -->', /background until \/regex\//],
    ['<!-- docs-test: sometimes -->', /unknown docs-test directive/],
  ])('refuses %s with the file and line', (comment, message) => {
    expect(() => codeBlocks(`${comment}\n\`\`\`sh\nx\n\`\`\``, 'X.md')).toThrow(message);
    expect(() => codeBlocks(`${comment}\n\`\`\`sh\nx\n\`\`\``, 'X.md')).toThrow(/X\.md:2/);
  });
});
