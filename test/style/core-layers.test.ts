/**
 * Core is three layers on a floor, each importing only from itself and the ones below it: `base/` (the
 * clock, logger, option checks, the platform's crypto and bytes), `verify/` (stateless: headers, signatures,
 * parsing, event types), `receiver/` (registration and the delivery pipeline) and
 * `adapter/` (the Node and Web entries). `testing/` and the main entry sit on top. A lower layer that
 * imports a higher one, or any import cycle (type imports included), fails here, naming the files.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../packages/core/src/', import.meta.url));

/** Lower number, lower layer. A file outside these folders (index.ts) is the top. */
const LAYERS: Record<string, number> = { base: 0, verify: 1, receiver: 2, adapter: 3, testing: 4 };
const TOP = 5;

function sources(): string[] {
  return readdirSync(SRC, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(SRC, join(e.parentPath, e.name)));
}

function layerOf(file: string): number {
  const top = file.split('/')[0]!;
  return file.includes('/') ? (LAYERS[top] ?? TOP) : TOP;
}

/** Relative imports and re-exports of a file, type-only ones included, as paths under src. */
function importsOf(file: string, text = readFileSync(join(SRC, file), 'utf8')): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const target = resolve(dirname(join(SRC, file)), m[1]!.replace(/\.js$/, '.ts'));
    found.push(relative(SRC, target));
  }
  return found;
}

const files = sources();
const graph = new Map(files.map((f) => [f, importsOf(f)]));

describe('core layers', () => {
  it('has the three layer folders, and files in them', () => {
    for (const layer of ['verify', 'receiver', 'adapter']) {
      expect(files.filter((f) => f.startsWith(`${layer}/`)).length).toBeGreaterThan(3);
    }
  });

  it('no file imports from a layer above its own', () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      for (const target of targets) {
        if (layerOf(target) > layerOf(file)) upward.push(`${file} → ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('has no import cycle, type imports included', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const path: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      path.push(file);
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next].join(' → '));
        else if (!state.has(next)) visit(next);
      }
      path.pop();
      state.set(file, 'done');
    };
    for (const file of files) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });

  it('catches an upward import and a cycle (the checks above can fail)', () => {
    expect(importsOf('verify/x.ts', "import type { Receiver } from '../receiver/receiver.js';")).toEqual([
      'receiver/receiver.ts',
    ]);
    expect(layerOf('receiver/receiver.ts')).toBeGreaterThan(layerOf('verify/x.ts'));
  });

  it('keeps each receiver file under about 300 lines', () => {
    const long = files
      .filter((f) => f.startsWith('receiver/'))
      .map((f) => [f, readFileSync(join(SRC, f), 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > 320);
    expect(long).toEqual([]);
  });
});
