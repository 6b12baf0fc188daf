import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** The rows of the first table under a `Runtimes` heading (`## Runtimes`, or a page's `# Runtimes`), as cells. */
function runtimeTable(markdown: string): string[][] {
  const section = markdown.slice(markdown.search(/^#{1,2} Runtimes$/m)).split('\n');
  const start = section.findIndex((line) => line.startsWith('|'));
  const end = section.findIndex((line, i) => i > start && !line.startsWith('|'));
  return section.slice(start + 2, end).map((line) =>
    line
      .slice(1, -1)
      .split('|')
      .map((cell) => cell.trim()),
  );
}

const rows = runtimeTable(read('packages/web/README.md'));
const installed = read('test/runtimes/install.sh');

// The table is what the tests prove: each row names a test that exists, and each version is the one
// install.sh installs.
describe("the web README's runtime table", () => {
  it('has a row for every runtime the tests run on', () => {
    const runtimes = rows.map(([runtime]) => runtime);
    for (const name of ['Node.js', 'Bun', 'Deno 2']) expect(runtimes).toContain(name);
    expect(runtimes.filter((r) => r?.startsWith('Cloudflare Workers'))).toHaveLength(2);
  });

  it.each(rows.map((row) => [row[0], row] as const))('%s names a test that exists', (_, row) => {
    const cell = row[3]!;
    const [, file, name] = /^`([^`]+)`(?: › (.+))?$/.exec(cell) ?? [];
    expect(file, `test cell: ${cell}`).toBeDefined();
    expect(existsSync(join(root, file!))).toBe(true);
    if (name !== undefined) expect(read(file!)).toContain(name);
  });

  it('gives the versions install.sh installs', () => {
    for (const [runtime, version] of rows) {
      if (runtime === 'Node.js') {
        for (const major of version!.match(/2[24]\.\d+/g)!) expect(installed).toContain(`x64@${major}.`);
      } else if (version !== 'the same' && version !== 'not run') {
        for (const v of version!.match(/\d+\.\d+\.\d+/g)!) expect(installed).toContain(`@${v}`);
      }
    }
  });

  it('is the same table in docs/runtimes.md', () => {
    expect(runtimeTable(read('docs/runtimes.md')).slice(0, rows.length)).toEqual(rows);
  });
});

// After the web handler's rows, docs/runtimes.md (linked from the top README) has one for each platform another package or example serves
// (Lambda, Next.js, Cloud Functions, test deliveries inside a Worker): each names a test that exists, and
// each version it gives is one the lockfile installs.
const platformRows = runtimeTable(read('docs/runtimes.md')).slice(rows.length);
const lockfile = read('pnpm-lock.yaml');

describe("docs/runtimes.md's platform rows", () => {
  it('has a row for Lambda, Next.js, Cloud Functions and test deliveries in workerd', () => {
    const runtimes = platformRows.map(([runtime]) => runtime).join('\n');
    for (const name of ['AWS Lambda', 'Next.js', 'Google Cloud Functions', 'test deliveries'])
      expect(runtimes).toContain(name);
  });

  it.each(platformRows.map((row) => [row[0], row] as const))('%s names a test that exists', (_, row) => {
    const [, file] = /^`([^`]+)`$/.exec(row[3]!) ?? [];
    expect(file, `test cell: ${row[3]}`).toBeDefined();
    expect(existsSync(join(root, file!))).toBe(true);
  });

  it.each(platformRows.map((row) => [row[0], row] as const))(
    '%s gives versions the lockfile installs',
    (_, row) => {
      const version = row[1]!;
      if (version === 'the same workerd')
        return expect(rows.some(([r]) => r?.startsWith('Cloudflare'))).toBe(true);
      const named = [...version.matchAll(/(`?)([@\w/.-]+)\1 (\d+\.\d+\.\d+)/g)].map(([, , name, v]) => [
        name === 'Next' ? 'next' : name!,
        v!,
      ]);
      expect(named.length, version).toBeGreaterThan(0);
      for (const [name, v] of named) expect(lockfile).toContain(`${name}@${v}`);
    },
  );
});
