import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BAD_INPUTS } from './helpers/bad-input-cases.js';

describe('README bad-input table', () => {
  it('has one row for every bad-input test, in order, and no row without one', () => {
    const readme = readFileSync(new URL('./README.md', import.meta.url), 'utf8');
    const lines = readme.split('\n');
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
