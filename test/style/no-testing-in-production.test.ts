/**
 * What ships takes nothing from `@sms-webhooks/core/testing`: that entry is for tests (contract suites,
 * VirtualClock), and a production module importing it makes it part of what every app loads and of
 * what core must keep stable for other reasons than tests.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGES = fileURLToPath(new URL('../../packages/', import.meta.url));

/** Still to move, each with why it is not yet: none since issue 47 (sampleData is in @sms-webhooks/internal). */
const NOT_YET: Record<string, string> = {};

const IMPORT = /^(?:import|export)\b[^;]*?\bfrom '@sms-webhooks\/core\/testing'/m;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|mts|cts)$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

it('no package source outside core/src/testing imports @sms-webhooks/core/testing', () => {
  const importers = readdirSync(PACKAGES)
    .flatMap((pkg) => {
      try {
        return sources(join(PACKAGES, pkg, 'src'));
      } catch {
        return [];
      }
    })
    .map((file) => file.slice(PACKAGES.length))
    .filter((file) => !file.startsWith('core/src/testing/'))
    .filter((file) => IMPORT.test(readFileSync(join(PACKAGES, file), 'utf8')));
  expect(importers.filter((file) => !(file in NOT_YET))).toEqual([]);
  // An entry whose file no longer imports it is stale: remove it.
  expect(Object.keys(NOT_YET).filter((file) => !importers.includes(file))).toEqual([]);
});
