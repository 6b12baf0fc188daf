/** A fenced code block of a README, with what its `<!-- docs-test: … -->` comment says to do with it. */
export interface CodeBlock {
  lang: string;
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The heading the block sits under (`## Use`), '' before the first one. */
  section: string;
  directive: Directive;
}

export type Directive =
  /** Run it to the end; it must exit 0. */
  | { kind: 'run' }
  /** Not run, for the reason given (an install from the registry, a fragment shown for reading). */
  | { kind: 'skip'; reason: string }
  /** Started and left running until a stdout line matches; its named groups become environment variables. */
  | { kind: 'background'; until: RegExp }
  /** Run after the blocks before it in the same section, as one program (a snippet continuing an example). */
  | { kind: 'continues' };

const FENCE = /^(`{3,})(\S*)\s*$/;
const DIRECTIVE = /^<!--\s*docs-test:\s*(.*?)\s*-->$/;

function parseDirective(text: string | undefined, where: string): Directive {
  if (text === undefined) return { kind: 'run' };
  const [word, ...rest] = text.split(/\s+/);
  const argument = rest.join(' ');
  if (word === 'skip') {
    if (argument === '') throw new Error(`${where}: "docs-test: skip" needs a reason`);
    return { kind: 'skip', reason: argument };
  }
  if (word === 'background') {
    const until = /^until\s+\/(.*)\/$/.exec(argument);
    if (!until) throw new Error(`${where}: write "docs-test: background until /regex/"`);
    return { kind: 'background', until: new RegExp(until[1]!) };
  }
  if (word === 'continues') return { kind: 'continues' };
  throw new Error(`${where}: unknown docs-test directive ${JSON.stringify(text)}`);
}

/** Every fenced block in order. A directive is the HTML comment on the line right above the fence. */
export function codeBlocks(markdown: string, file = 'README.md'): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const heading = /^#{1,6}\s+(.*)$/.exec(lines[i]!);
    if (heading) section = heading[1]!.trim();
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i]!.trim() !== open[1]; i++) body.push(lines[i]!);
    const comment = DIRECTIVE.exec(lines[start - 1]?.trim() ?? '');
    blocks.push({
      lang: open[2] ?? '',
      code: `${body.join('\n')}\n`,
      line: start + 1,
      section,
      directive: parseDirective(comment?.[1], `${file}:${start + 1}`),
    });
  }
  return blocks;
}

/** Languages that are programs to run; other blocks (json, text, …) are data shown for reading. */
export function isProgram(block: CodeBlock): boolean {
  return ['ts', 'typescript', 'js', 'javascript', 'sh', 'bash', 'shell'].includes(block.lang);
}
