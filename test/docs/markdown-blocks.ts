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

/** Where a block runs: Node (through tsx), or the runtime its README is about (test/runtimes installs them). */
export type Runtime = 'node' | 'bun' | 'deno' | 'workerd';
const RUNTIMES: readonly Runtime[] = ['node', 'bun', 'deno', 'workerd'];

export type Directive =
  /** Run it to the end; it must exit 0. */
  | { kind: 'run'; on: Runtime }
  /** Not run, for the reason given (an install from the registry, a fragment shown for reading). */
  | { kind: 'skip'; reason: string }
  /** Started and left running until an output line matches; its named groups become environment variables. */
  | { kind: 'background'; until: RegExp; on: Runtime }
  /**
   * Run after the block before it, as one program (a snippet continuing an example); with `until`, that
   * program is started in the background as `background` says.
   */
  | { kind: 'continues'; until?: RegExp };

const FENCE = /^(\s*)(`{3,})(\S*)\s*$/;
const DIRECTIVE = /^<!--\s*docs-test:\s*(.*?)\s*-->$/;
const GRAMMAR =
  /^(?<continues>continues)?\s*(?<background>background)?\s*(?:on\s+(?<on>\S+))?\s*(?:until\s+\/(?<until>.*)\/)?$/;

function parseDirective(text: string | undefined, where: string): Directive {
  if (text === undefined) return { kind: 'run', on: 'node' };
  const fail = (message: string): never => {
    throw new Error(`${where}: ${message}`);
  };
  const [word, ...rest] = text.split(/\s+/);
  if (word === 'skip') {
    const reason = rest.join(' ');
    if (reason === '') fail('"docs-test: skip" needs a reason');
    return { kind: 'skip', reason };
  }
  const parts = GRAMMAR.exec(text)?.groups;
  if (!parts || text === '') {
    if (/\bbackground\b/.test(text)) fail('write "docs-test: background until /regex/"');
    return fail(`unknown docs-test directive ${JSON.stringify(text)}`);
  }
  const on = (parts.on ?? 'node') as Runtime;
  if (!RUNTIMES.includes(on)) fail(`"on ${parts.on}": a block runs on ${RUNTIMES.join(', ')}`);
  if (parts.background && parts.until === undefined) fail('write "docs-test: background until /regex/"');
  if (!parts.background && parts.until !== undefined) fail('"until" goes with "background"');
  const until = parts.until === undefined ? undefined : new RegExp(parts.until);
  if (parts.continues) {
    if (parts.on) fail('a continued block runs where the block before it ran: leave out "on"');
    return until ? { kind: 'continues', until } : { kind: 'continues' };
  }
  if (until) return { kind: 'background', until, on };
  // A Worker is a module the platform serves: there is nothing to run to its end.
  if (on === 'workerd') fail('write "docs-test: background on workerd until /regex/"');
  return { kind: 'run', on };
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
    // A fence indented under a list item: its lines carry the same indentation, which is not code.
    const indent = open[1]!;
    const fence = open[2]!;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i]!.trim() !== fence; i++) {
      const line = lines[i]!;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    const comment = DIRECTIVE.exec(lines[start - 1]?.trim() ?? '');
    blocks.push({
      lang: open[3]!,
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
