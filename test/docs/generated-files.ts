import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './run-blocks.js';

// The generated files a check compares with what is committed: path (from the repository root, `/`) to text.
export type Files = Map<string, string>;

/** Every file under `dir`, keyed `prefix/<path below dir>`. */
export function filesUnder(dir: string, prefix: string): Files {
  const files: Files = new Map();
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(
      `${prefix}/${path
        .slice(dir.length + 1)
        .split('\\')
        .join('/')}`,
      readFileSync(path, 'utf8'),
    );
  }
  return files;
}

/** The files of the working tree matching `pathspecs`, tracked or new but not git-ignored. */
export function filesInTree(...pathspecs: string[]): Files {
  const paths = execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...pathspecs],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
  const files: Files = new Map();
  for (const path of new Set(paths.split('\n').filter(Boolean))) {
    try {
      files.set(path, readFileSync(join(root, path), 'utf8'));
    } catch {
      // Deleted in the working tree but still in the index: not there.
    }
  }
  return files;
}

/** One line per file that differs between a fresh generation and the tree, with the first line that differs. */
export function differences(generated: Files, tree: Files): string[] {
  const lines: string[] = [];
  for (const path of [...new Set([...generated.keys(), ...tree.keys()])].sort()) {
    const fresh = generated.get(path);
    const kept = tree.get(path);
    if (kept === undefined) lines.push(`${path}: missing`);
    else if (fresh === undefined) lines.push(`${path}: no longer generated`);
    else if (fresh !== kept) {
      const a = kept.split('\n');
      const b = fresh.split('\n');
      const at = a.findIndex((line, i) => line !== b[i]);
      const n = at === -1 ? a.length : at;
      lines.push(
        `${path}:${n + 1}: is ${JSON.stringify(a[n] ?? '')}, generated ${JSON.stringify(b[n] ?? '')}`,
      );
    }
  }
  return lines;
}
