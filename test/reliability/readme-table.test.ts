import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BAD_INPUTS } from './helpers/bad-input-cases.js';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');

/** The `## Reliability` section: from its heading to the next level-2 heading or the end of the file. */
function reliabilitySection(markdown: string): string {
  const start = markdown.indexOf('\n## Reliability\n');
  if (start < 0) return '';
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start + 1, end < 0 ? undefined : end).trim();
}

describe('README bad-input table', () => {
  it('has one row for every bad-input test, in order, and no row without one', () => {
    const lines = read('./README.md').split('\n');
    const header = lines.findIndex((l) => /^\|\s*input\s*\|\s*answer\s*\|$/.test(l));
    expect(header).toBeGreaterThan(0);
    const rows: string[] = [];
    for (const line of lines.slice(header + 2)) {
      if (!line.startsWith('|')) break;
      rows.push(line.split('|')[1]!.trim());
    }
    expect(rows).toEqual(BAD_INPUTS.map((c) => c.name));
  });
});

// The figures are written here, next to the tests, and copied to docs/reliability.md, which the top README
// links. This keeps the copy from drifting: change both, or the suite fails.
describe('docs/reliability.md', () => {
  it('is the text of the Reliability section in test/reliability/README.md', () => {
    const here = reliabilitySection(read('./README.md'));
    expect(here).toMatch(/^## Reliability\n/);
    expect(here).toContain('| input ');
    const body = here.slice('## Reliability\n'.length).trim();
    const page = read('../../docs/reliability.md');
    expect(page).toMatch(/^# Reliability\n/);
    expect(page.slice(page.indexOf('-->') + 3).trim()).toBe(body.replaceAll('\n### ', '\n## '));
  });
});
