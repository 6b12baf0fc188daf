/**
 * Small units (STYLE.md: "small kebab-case files, one function each"): no file in each package's `src/` over
 * 400 lines, and no function over 80, measured with the TypeScript compiler's own parse (a function's
 * lines run from its first token to its closing brace, nested functions included). An offender fails
 * here with its place and size; split it by concern. ALLOWED would list one not split yet, with its
 * reason and its size today, so that growing it fails too; an entry whose unit is split fails until taken out.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;

/**
 * `path` or `path:name`, with its lines today and why it is not split yet. Empty: every unit is within the
 * limits. An entry no longer over fails the test below that checks for stale ones.
 */
const ALLOWED: Record<string, { lines: number; reason: string }> = {};

interface Offender {
  /** `packages/x/src/file.ts` for a file, `packages/x/src/file.ts:name` for a function. */
  unit: string;
  line: number;
  lines: number;
}

function lineCount(text: string): number {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** A function's name as a reader would look it up: its own, or the variable or property it is set to. */
function nameOf(node: ts.SignatureDeclaration, source: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const own = node.name ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name : undefined);
  const named =
    own ??
    (ts.isPropertyAssignment(node.parent) || ts.isPropertyDeclaration(node.parent)
      ? node.parent.name
      : undefined);
  return named === undefined ? '(anonymous)' : named.getText(source);
}

/** Files over `maxFile` lines and functions over `maxFunction` lines in one source text. */
function offendersIn(
  file: string,
  text: string,
  maxFile = MAX_FILE_LINES,
  maxFunction = MAX_FUNCTION_LINES,
): Offender[] {
  const found: Offender[] = [];
  const lines = lineCount(text);
  if (lines > maxFile) found.push({ unit: file, line: 1, lines });
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (last - first + 1 > maxFunction) {
        found.push({ unit: `${file}:${nameOf(node, source)}`, line: first + 1, lines: last - first + 1 });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sources(): string[] {
  const files: string[] = [];
  for (const pkg of readdirSync(join(ROOT, 'packages'), { withFileTypes: true })) {
    if (!pkg.isDirectory()) continue;
    const src = join(ROOT, 'packages', pkg.name, 'src');
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(src, { withFileTypes: true, recursive: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (e.isFile() && /\.(ts|tsx|mts|cts)$/.test(e.name))
        files.push(relative(ROOT, join(e.parentPath, e.name)));
    }
  }
  return files.sort();
}

describe('unit size', () => {
  const files = sources();
  const offenders = files.flatMap((file) => offendersIn(file, readFileSync(join(ROOT, file), 'utf8')));

  it('reads the sources of every package', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.some((f) => f.startsWith('packages/core/src/'))).toBe(true);
  });

  it(`has no file over ${MAX_FILE_LINES} lines and no function over ${MAX_FUNCTION_LINES} in packages/*/src, but the allowed ones no larger`, () => {
    const unexpected = offenders
      .filter((o) => ALLOWED[o.unit] === undefined || o.lines > ALLOWED[o.unit]!.lines)
      .map((o) => `${o.unit} (line ${o.line}): ${o.lines} lines`);
    expect(unexpected, 'split these by concern').toEqual([]);
  });

  it('allows only units still over the limits: an entry whose unit was split is taken out', () => {
    const over = new Set(offenders.map((o) => o.unit));
    expect(Object.keys(ALLOWED).filter((unit) => !over.has(unit))).toEqual([]);
  });

  it('measures what it says: a long function, a long method, a long arrow and a long file are found', () => {
    const body = Array.from({ length: 81 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = [
      `export function declared() {\n${body}\n}`,
      `class C {\n  method() {\n${body}\n  }\n}`,
      `const arrow = () => {\n${body}\n};`,
      `const short = () => 1;`,
    ].join('\n');
    const found = offendersIn('x.ts', text, 200);
    expect(found.map((o) => o.unit)).toEqual(['x.ts', 'x.ts:declared', 'x.ts:method', 'x.ts:arrow']);
    expect(found[1]!.lines).toBe(83);
    expect(offendersIn('y.ts', 'const short = () => 1;\n')).toEqual([]);
  });
});
