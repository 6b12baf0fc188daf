import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { root } from './run-blocks.js';

// The functions an app calls first carry an `@example` in their doc comment (what an editor shows on
// hover and the API reference prints), and each example type-checks as a reader would paste it.

const ENTRY_POINTS: Array<[file: string, name: string]> = [
  ['packages/core/src/receiver/create-receiver.ts', 'createReceiver'],
  ['packages/express/src/webhook-middleware.ts', 'webhookMiddleware'],
  ['packages/fastify/src/webhook-plugin.ts', 'webhookPlugin'],
  ['packages/koa/src/webhook-middleware.ts', 'webhookMiddleware'],
  ['packages/web/src/webhook-handler.ts', 'webhookHandler'],
  ['packages/lambda/src/lambda-handler.ts', 'lambdaHandler'],
  ['packages/client/src/client.ts', 'createClient'],
  ['packages/emulator/src/emulator.ts', 'createEmulator'],
  ['packages/nestjs/src/sms-webhooks.module.ts', 'SmsWebhooksModule'],
  ['packages/ops/src/audit.ts', 'auditWebhook'],
];

/** The fenced code of the `@example` tags in the doc comment right above `export … name`. */
function docExamples(source: string, name: string): string[] {
  // Decorators (Nest's @Module) may stand between the comment and the export.
  const at = new RegExp(
    `\\*/\\n(?:@[\\s\\S]*?\\n)?export (?:async )?(?:function|const|class) ${name}\\b`,
  ).exec(source);
  if (!at) return [];
  const comment = source.slice(source.lastIndexOf('/**', at.index), at.index);
  const text = comment.replace(/^\s*\* ?/gm, '');
  return [...text.matchAll(/@example[^\n]*\n```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

const dir = join(root, 'test', '.tmp', 'doc-examples');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

it.each(ENTRY_POINTS)('%s: %s has an @example', (file, name) => {
  expect(docExamples(readFileSync(join(root, file), 'utf8'), name).length).toBeGreaterThan(0);
});

it('every @example type-checks', () => {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [file, name] of ENTRY_POINTS) {
    // Beside the package's own node_modules: an example imports what a user of that package installs.
    const pkg = file.split('/').slice(0, 2).join('/');
    const out = join(dir, pkg.replace(/\W/g, '-'));
    if (!existsSync(out)) {
      mkdirSync(out, { recursive: true });
      if (existsSync(join(root, pkg, 'node_modules')))
        symlinkSync(join(root, pkg, 'node_modules'), join(out, 'node_modules'));
    }
    docExamples(readFileSync(join(root, file), 'utf8'), name).forEach((code, i) => {
      writeFileSync(join(out, `${name}-${i}.ts`), `${code}\nexport {};\n`);
    });
  }
  expect(
    readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith('.ts')).length,
  ).toBeGreaterThan(0);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: '../../../tsconfig.json',
      compilerOptions: { types: ['node'] },
      include: ['**/*.ts'],
      exclude: ['**/node_modules'],
    }),
  );
  let output = '';
  try {
    execFileSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { cwd: root, encoding: 'utf8' });
  } catch (error) {
    output = (error as { stdout: string }).stdout;
  }
  const diagnostics = output.split(/\n(?=\S)/).filter((d) => d.startsWith('test/.tmp/doc-examples/'));
  expect(diagnostics).toEqual([]);
}, 420_000);
