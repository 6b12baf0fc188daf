import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './run-blocks.js';

// Every published package says where it comes from and carries the MIT license text in its tarball.

const license = readFileSync(join(root, 'LICENSE'), 'utf8');
const packages = readdirSync(join(root, 'packages')).filter((name) => {
  try {
    readFileSync(join(root, 'packages', name, 'package.json'));
    return true;
  } catch {
    return false;
  }
});

describe.each(packages)('packages/%s', (name) => {
  const dir = join(root, 'packages', name);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

  it('has license MIT, repository (with its directory), homepage and bugs', () => {
    expect(license).toMatch(/^MIT License\n/);
    expect(pkg.license).toBe('MIT');
    expect(pkg.repository).toEqual({
      type: 'git',
      url: expect.stringMatching(/^git\+https:\/\/.+\.git$/),
      directory: `packages/${name}`,
    });
    expect(pkg.homepage).toMatch(new RegExp(`^https://.+/packages/${name}#readme$`));
    expect(pkg.bugs).toEqual({ url: expect.stringMatching(/^https:\/\/.+\/issues$/) });
  });

  it('packs the LICENSE, the same text as the repository one', () => {
    expect(pkg.files).toContain('LICENSE');
    expect(readFileSync(join(dir, 'LICENSE'), 'utf8')).toBe(license);
    const listed = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: dir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    ) as { files: { path: string }[] }[];
    expect(listed[0]!.files.map((f) => f.path)).toContain('LICENSE');
  });
});
