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

  // That the tarball holds it is checked on the tarballs themselves, in test/packaging/packaging.test.ts.
  it('lists the LICENSE in `files`, the same text as the repository one', () => {
    expect(pkg.files).toContain('LICENSE');
    expect(readFileSync(join(dir, 'LICENSE'), 'utf8')).toBe(license);
  });
});

// The client or framework each package works with, as an application installs it: a peer dependency with
// the supported range, so npm refuses a major we have not tested (ioredis 6 once slipped in unannounced).
const CLIENTS: Record<string, string[]> = {
  bullmq: ['bullmq'],
  cli: ['bullmq', 'ioredis', 'pg', 'pg-boss'],
  express: ['express'],
  fastify: ['fastify'],
  koa: ['koa'],
  nestjs: ['@nestjs/common', '@nestjs/core'],
  otel: ['@opentelemetry/api'],
  'pg-boss': ['pg-boss'],
  postgres: ['pg', 'postgres'],
  rabbitmq: ['amqplib'],
  redis: ['ioredis', 'redis'],
};
// Imported by a package's sources: must be declared, as a peer when it is one of the clients above.
const KNOWN_CLIENTS = new Set(Object.values(CLIENTS).flat());

/** Every bare import of a package's sources that is not node:* or ours. */
function importsOf(dir: string): Set<string> {
  const found = new Set<string>();
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.ts$/.test(entry.name)) {
        // Without comment lines: an `@example`'s imports are the reader's app's, not the package's.
        const text = readFileSync(path, 'utf8').replace(/^\s*(\*|\/\/).*$/gm, '');
        for (const [, spec] of text.matchAll(/(?:from|import\()\s*'([^.'][^']*)'/g)) {
          if (spec!.startsWith('node:') || spec!.startsWith('@sms-webhooks/')) continue;
          found.add(spec!.startsWith('@') ? spec!.split('/').slice(0, 2).join('/') : spec!.split('/')[0]!);
        }
      }
    }
  };
  walk(join(dir, 'src'));
  return found;
}

// Majors a peer range names that no copy in the workspace installs, so no test runs on them.
const UNTESTED_MAJORS: Record<string, number[]> = {};

/** The majors a range of the form `^A.B.C || ^D.E.F` allows; anything else fails the test. */
function majors(range: string): number[] {
  return range.split(' || ').map((part) => {
    const m = /^\^(\d+)\.\d+\.\d+$/.exec(part);
    if (!m) throw new Error(`range ${range}: write each part as ^major.minor.patch`);
    return Number(m[1]);
  });
}

/** The versions of `name` the workspace installs for its tests: the package itself and its npm: aliases. */
function installedVersions(name: string, dir: string): string[] {
  const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const own = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const aliases = Object.entries({ ...rootPkg.devDependencies, ...own.devDependencies })
    .filter(([, spec]) => String(spec).startsWith(`npm:${name}@`))
    .map(([alias]) => alias);
  const versions: string[] = [];
  for (const installed of [name, ...aliases]) {
    for (const base of [dir, root]) {
      try {
        versions.push(
          JSON.parse(readFileSync(join(base, 'node_modules', installed, 'package.json'), 'utf8')).version,
        );
        break;
      } catch {}
    }
  }
  return versions;
}

describe.each(packages)('packages/%s peer dependencies', (name) => {
  const dir = join(root, 'packages', name);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const peers: Record<string, string> = pkg.peerDependencies ?? {};
  const expected = new Set([
    ...(CLIENTS[name] ?? []),
    ...[...importsOf(dir)].filter((spec) => KNOWN_CLIENTS.has(spec)),
  ]);

  it('declares every client and framework it works with as a peer, never as a dependency', () => {
    expect(
      Object.keys(peers)
        .filter((peer) => expected.has(peer))
        .sort(),
    ).toEqual([...expected].sort());
    for (const peer of expected) expect(pkg.dependencies?.[peer], peer).toBeUndefined();
    // Whatever else its sources import is declared somewhere (a type-only import of @types/… aside).
    const declared = { ...pkg.dependencies, ...peers };
    for (const spec of importsOf(dir)) {
      expect(declared[spec] ?? declared[`@types/${spec}`], `${name} imports ${spec}`).toBeDefined();
    }
  });

  it.each([...expected])(
    '%s: its newest supported major is installed here, so the tests run on it',
    (peer) => {
      const allowed = majors(peers[peer]!);
      const installed = installedVersions(peer, dir);
      const installedMajors = installed.map((v) => Number(v.split('.')[0]));
      // Each copy the tests use is inside the range, and the range's newest major is one of them.
      for (const major of installedMajors) expect(allowed, `${peer} ${installed}`).toContain(major);
      expect(installedMajors).toContain(Math.max(...allowed));
      // And every other major the range names, as an npm: alias (`"pg-boss12": "npm:pg-boss@…"`), unless
      // it is a gap known below: a range widened without a copy to test it on fails here.
      const untested = UNTESTED_MAJORS[peer] ?? [];
      expect(allowed.filter((major) => !installedMajors.includes(major)).sort()).toEqual(
        untested.filter((major) => allowed.includes(major)),
      );
    },
  );
});

/** The @sms-webhooks packages installing `names` brings in: dependencies and required peers, transitively. */
function withOwnDependencies(names: string[]): Set<string> {
  const all = new Set<string>();
  const visit = (name: string) => {
    if (all.has(name)) return;
    all.add(name);
    const pkg = JSON.parse(readFileSync(join(root, 'packages', name, 'package.json'), 'utf8'));
    const optional = pkg.peerDependenciesMeta ?? {};
    const required = Object.keys(pkg.peerDependencies ?? {}).filter((peer) => !optional[peer]?.optional);
    for (const dep of [...Object.keys(pkg.dependencies ?? {}), ...required])
      if (dep.startsWith('@sms-webhooks/')) visit(dep.slice('@sms-webhooks/'.length));
  };
  for (const name of names) visit(name);
  return all;
}

// A reader with a clone cannot `npm install @sms-webhooks/…` before it is published: each package README's
// install block also gives the tarballs `pnpm tarballs` writes, every one the install needs (a tarball
// whose own @sms-webhooks dependency is missing would send npm to the registry for it).
describe.each(packages)('packages/%s README install line', (name) => {
  it('installs from npm and from a clone, with the same packages', () => {
    const readme = readFileSync(join(root, 'packages', name, 'README.md'), 'utf8');
    const npmLine = readme
      .split('\n')
      .find((l) => l.startsWith('npm install') && l.includes('@sms-webhooks/'));
    expect(npmLine, 'an npm install line').toBeDefined();
    const named = [...npmLine!.matchAll(/@sms-webhooks\/([\w-]+)/g)].map(([, n]) => n!);
    const tarballLine = readme.split('\n').find((l) => l.startsWith('#   npm install <clone>/tarballs/'));
    expect(tarballLine, 'a tarball install line').toBeDefined();
    const tarballs = [
      ...tarballLine!.matchAll(/<clone>\/tarballs\/sms-webhooks-([\w-]+)-(\d+\.\d+\.\d+)\.tgz/g),
    ];
    expect(tarballs.map(([, n]) => n).sort()).toEqual([...withOwnDependencies(named)].sort());
    for (const [, n, version] of tarballs) {
      expect(version).toBe(
        JSON.parse(readFileSync(join(root, 'packages', n!, 'package.json'), 'utf8')).version,
      );
    }
  });
});
