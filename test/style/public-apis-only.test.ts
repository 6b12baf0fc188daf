/**
 * The packages use Node's public APIs only. Private internals (the HTTP parser behind a socket, its
 * callback slots, `_`-prefixed fields, replaced socket methods) change between Node majors and are
 * shared across the process: the parser pool serves every server and the `http` client, so touching
 * one request's parser once broke other requests' bodies.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGES = fileURLToPath(new URL('../../packages/', import.meta.url));

const FORBIDDEN: [RegExp, string][] = [
  [/\.parser\b/, 'a socket or request parser'],
  [/\bkOn[A-Z]\w*/, "an HTTP parser's callback slot"],
  [/\bHTTPParser\b/, "Node's HTTP parser"],
  [/\bprocess\.binding\b|\binternalBinding\b/, 'an internal binding'],
  [/\.(destroySoon|_destroy|_read|_write|_final)\s*=[^=]/, 'a replaced stream or socket method'],
  [
    /\._(readableState|writableState|httpMessage|handle|body|consuming|dump|events|headers|parent|pendingData)\b/,
    'a private field',
  ],
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|mts|cts|js|mjs)$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

describe('packages/*/src use public APIs only', () => {
  const files = readdirSync(PACKAGES).flatMap((pkg) => {
    try {
      return sources(join(PACKAGES, pkg, 'src'));
    } catch {
      return [];
    }
  });

  it('finds the sources it checks', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(files.some((f) => f.endsWith('node-handler.ts'))).toBe(true);
  });

  for (const [pattern, what] of FORBIDDEN) {
    it(`none reaches ${what}`, () => {
      const hits = files.flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .map((line, i) => ({ line, at: `${file.slice(PACKAGES.length)}:${i + 1}` }))
          .filter(({ line }) => !/^\s*(\/\/|\*)/.test(line) && pattern.test(line))
          .map(({ at, line }) => `${at}: ${line.trim()}`),
      );
      expect(hits).toEqual([]);
    });
  }

  it('each pattern catches the code it is meant for', () => {
    const samples = [
      'const parser = socket.parser;',
      'parser[HTTPParser.kOnBody] = undefined;',
      'new HTTPParser()',
      "process.binding('http_parser')",
      'socket.destroySoon = function () {}',
      'req._readableState.flowing',
    ];
    for (const [i, [pattern]] of FORBIDDEN.entries()) {
      expect(
        samples.some((s) => pattern.test(s)),
        `pattern ${i}`,
      ).toBe(true);
    }
  });
});
