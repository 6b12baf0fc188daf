/**
 * No import circle in any package: within each package's src, the files' relative imports (type-only
 * imports and re-exports included, since they tie the files together for a reader all the same) form no
 * cycle; and the packages' imports of one another form none either. A circle is reported as the files
 * (or packages) it runs through, so the fix can start from the names.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGES = fileURLToPath(new URL('../../packages/', import.meta.url));

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]/g;
const BARE_IMPORT = /(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;
const DYNAMIC_IMPORT = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every specifier a file imports or re-exports, type-only, side-effect and dynamic imports included. */
function specifiersOf(text: string): string[] {
  return [IMPORT, BARE_IMPORT, DYNAMIC_IMPORT].flatMap((re) => [...text.matchAll(re)].map((m) => m[1]!));
}

function sources(src: string): string[] {
  return readdirSync(src, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(src, join(e.parentPath, e.name)))
    .sort();
}

/** A relative specifier as the file under src it names (`./x.js` is x.ts, as TypeScript resolves it). */
function resolveRelative(src: string, file: string, specifier: string): string {
  const target = resolve(dirname(join(src, file)), specifier.replace(/\.js$/, '.ts'));
  return relative(src, existsSync(target) ? target : join(target.replace(/\.ts$/, ''), 'index.ts'));
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function circlesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.includes(node)) found.push(component);
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found.map((component) => cycleThrough(graph, component.sort()));
}

/** One cycle through a component, as a path from its first file back to it, for the report. */
function cycleThrough(graph: ReadonlyMap<string, readonly string[]>, component: string[]): string[] {
  const inside = new Set(component);
  const start = component[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!inside.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return component;
}

const report = (where: string, path: string[]) => `${where}: ${path.join(' → ')}`;

const packages = readdirSync(PACKAGES).filter((p) => existsSync(join(PACKAGES, p, 'src')));

interface PackageGraph {
  files: ReadonlyMap<string, readonly string[]>;
  /** Relative imports that name no file: the graph would miss their edges. */
  unresolved: string[];
  /** The other workspace packages this one's src imports. */
  uses: Set<string>;
}

function graphOf(pkg: string): PackageGraph {
  const src = join(PACKAGES, pkg, 'src');
  const files = new Map<string, string[]>();
  const unresolved: string[] = [];
  const uses = new Set<string>();
  for (const file of sources(src)) {
    const targets: string[] = [];
    for (const specifier of specifiersOf(readFileSync(join(src, file), 'utf8'))) {
      const workspace = /^@sms-webhooks\/([a-z-]+)/.exec(specifier)?.[1];
      if (workspace !== undefined && workspace !== pkg) uses.add(workspace);
      if (!specifier.startsWith('.')) continue;
      const target = resolveRelative(src, file, specifier);
      if (existsSync(join(src, target))) targets.push(target);
      else unresolved.push(`${pkg}: ${file} imports ${specifier}`);
    }
    files.set(file, [...new Set(targets)]);
  }
  return { files, unresolved, uses };
}

const graphs = new Map(packages.map((p) => [p, graphOf(p)]));

describe('import circles', () => {
  it('reads every package, core included', () => {
    expect(packages).toEqual(expect.arrayContaining(['core', 'cli', 'otel', 'postgres', 'redis']));
    for (const [pkg, graph] of graphs) expect(graph.files.size, pkg).toBeGreaterThan(0);
  });

  it('resolves every relative import to a file', () => {
    expect([...graphs.values()].flatMap((g) => g.unresolved)).toEqual([]);
  });

  it.each(packages)('%s has no import circle among its files', (pkg) => {
    expect(circlesOf(graphs.get(pkg)!.files).map((path) => report(pkg, path))).toEqual([]);
  });

  it('the packages import one another without a circle', () => {
    const uses = new Map([...graphs].map(([pkg, graph]) => [pkg, [...graph.uses].sort()]));
    expect(circlesOf(uses).map((path) => report('packages', path))).toEqual([]);
  });

  it('can fail: finds a type-only circle, a re-export circle and a file importing itself', () => {
    expect(
      specifiersOf("import type { A } from './a.js';\nexport * from './b.js';\nimport './c.js';"),
    ).toEqual(['./a.js', './b.js', './c.js']);
    expect(specifiersOf('import {\n  type A,\n  b,\n} from "./multi-line.js";')).toEqual(['./multi-line.js']);
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);
    expect(circlesOf(graph).map((path) => report('x', path))).toEqual([
      'x: a.ts → b.ts → c.ts → a.ts',
      'x: e.ts → e.ts',
    ]);
  });
});
