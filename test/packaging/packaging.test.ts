import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const packages = readdirSync(join(root, 'packages')).sort();
// Under `npx pnpm …` there is no global pnpm: reuse the one running this script when there is one.
const pnpm = (args: string[], cwd = root) =>
  process.env.npm_execpath?.includes('pnpm')
    ? run(process.execPath, [process.env.npm_execpath, ...args], cwd)
    : run('pnpm', args, cwd);
const run = (cmd: string, args: string[], cwd = root) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 240_000 });

// The published shape: every package builds to ESM + CJS with types for both, and resolves under
// node16 from either module system (attw) with a clean package.json (publint).
describe('published packages', () => {
  beforeAll(() => {
    pnpm(['--filter', './packages/*', 'build']);
  }, 300_000);

  it.each(packages)('%s passes publint and are-the-types-wrong', async (name) => {
    const dir = join(root, 'packages', name);
    const { publint } = await import('publint');
    const { formatMessage } = await import('publint/utils');
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const { messages } = await publint({ pkgDir: dir, strict: true });
    expect(messages.map((m) => formatMessage(m, pkg))).toEqual([]);
    const attw = run(bin('attw'), ['--pack', dir, '--profile', 'node16', '--format', 'json']);
    const report = JSON.parse(attw.slice(attw.indexOf('{')));
    // Node 10 resolution cannot see subpath exports; the packages require Node >= 20.
    const problems = (report.analysis?.problems ?? []).filter(
      (p: { resolutionKind?: string }) => p.resolutionKind !== 'node10',
    );
    expect(problems).toEqual([]);
  });

  describe('@sms-webhooks/core installed from its tarball', () => {
    let consumer: string;
    beforeAll(() => {
      consumer = mkdtempSync(join(tmpdir(), 'sms-webhooks-consumer-'));
      const tgz = pnpm(['pack', '--pack-destination', consumer], join(root, 'packages/core'))
        .trim()
        .split('\n')
        .pop()!;
      writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
      run('npm', ['install', '--no-audit', '--no-fund', '--offline', tgz], consumer);
    }, 120_000);
    afterAll(() => rmSync(consumer, { recursive: true, force: true }));

    const program = (load: string) => `
      ${load}
      const secret = 'whsec_pack';
      const d = core.createTestDelivery('message.delivered', { secret });
      const receiver = core.createReceiver({ secret, respond: 'after-handlers', logger: console });
      receiver.on('message.delivered', (e) => { console.log('handled', e.data.to); });
      receiver.handle({ rawBody: d.body, headers: d.headers }).then((r) => {
        console.log(r.status, typeof testing.runDedupeStoreContract);
      });`;

    it('works from CommonJS', () => {
      writeFileSync(
        join(consumer, 'index.cjs'),
        program(
          "const core = require('@sms-webhooks/core'); const testing = require('@sms-webhooks/core/testing');",
        ),
      );
      expect(run(process.execPath, ['index.cjs'], consumer)).toBe('handled +15555550123\n200 function\n');
    });

    it('works from ESM', () => {
      writeFileSync(
        join(consumer, 'index.mjs'),
        program(
          "import * as core from '@sms-webhooks/core'; import * as testing from '@sms-webhooks/core/testing';",
        ),
      );
      expect(run(process.execPath, ['index.mjs'], consumer)).toBe('handled +15555550123\n200 function\n');
    });

    it('type-checks from TypeScript, as ESM and as CommonJS', () => {
      const src = `
        import { createReceiver, type WebhookEvent } from '@sms-webhooks/core';
        import { runDedupeStoreContract } from '@sms-webhooks/core/testing';
        const r = createReceiver({ secret: 'whsec_x' });
        r.on('message.failed', (e: WebhookEvent<'message.failed'>) => e.data.to.toUpperCase());
        export const f: typeof runDedupeStoreContract = runDedupeStoreContract;
      `;
      writeFileSync(join(consumer, 'esm.mts'), src);
      writeFileSync(join(consumer, 'cjs.cts'), src);
      const out = run(
        bin('tsc'),
        [
          '--noEmit',
          '--strict',
          '--module',
          'node16',
          '--moduleResolution',
          'node16',
          '--types',
          'node',
          '--typeRoots',
          join(root, 'node_modules/@types'),
          'esm.mts',
          'cjs.cts',
        ],
        consumer,
      );
      expect(out).toBe('');
    });
  });
});
