import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createTestDelivery } from '@sms-webhooks/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker } from '../runtimes/workerd.js';
import { adaptersExpected, adaptersProgram } from './adapters-program.js';
import { bin, installTarball, pnpm, root, run, tarball } from './consumer.js';
import { bundleFor, EDGE_LIGHT_CONDITIONS, readmeWorker, WRANGLER_CONDITIONS } from './web-build.js';

const packages = readdirSync(join(root, 'packages')).sort();
const STALE = 'sms-webhooks-removed-0.0.1.tgz';
const license = readFileSync(join(root, 'LICENSE'), 'utf8');
// Bundled into each package's build, never published (internal/package.json).
const PRIVATE = '@sms-webhooks/internal';

// The published shape: every package builds to ESM + CJS with types for both, and resolves with types in
// every TypeScript resolution mode, every subpath (attw), with a clean package.json (publint).
describe('published packages', () => {
  // The second `pnpm build`, over the first one's dist/: its output, checked by the first test.
  let secondBuild: { status: number | null; output: string };
  beforeAll(() => {
    // Start from no dist/, as a fresh clone does; then build again over that output, as a user does after
    // `pnpm test`. The packages build in parallel, and a package's type build that took in another's dist/
    // failed the second time with TS6053 while that dist/ was being cleaned (tsconfig.build.json's include).
    for (const name of packages)
      rmSync(join(root, 'packages', name, 'dist'), { recursive: true, force: true });
    pnpm(['build']);
    try {
      secondBuild = { status: 0, output: pnpm(['build']) };
    } catch (error) {
      const e = error as { status: number | null; stdout?: string; stderr?: string };
      secondBuild = { status: e.status, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
    }
    // `pnpm tarballs` as the README gives it is `pnpm build` when a dist/ is stale (not now: just built) and
    // then this: every package packed into tarballs/, which it empties first. A tarball left by an earlier
    // run must go.
    mkdirSync(join(root, 'tarballs'), { recursive: true });
    writeFileSync(join(root, 'tarballs', STALE), 'left by an earlier run');
    pnpm(['tarballs:pack']);
    // attw over each tarball just written (what npm would publish, pnpm's rewritten manifest included),
    // two at a time while the tests below run: each is one TypeScript program, about 2 s of CPU.
    const lanes: Promise<unknown>[] = [Promise.resolve(), Promise.resolve()];
    packages.forEach((name, i) => {
      const running = lanes[i % 2]!.then(() => attw(name));
      lanes[i % 2] = running;
      attwReports.set(name, running);
    });
  }, 600_000);
  const attwReports = new Map<string, Promise<AttwRun>>();

  it('builds a second time over its own output', () => {
    expect(secondBuild.output).not.toMatch(/error TS\d+/);
    expect(secondBuild.status, secondBuild.output).toBe(0);
  });

  describe('@sms-webhooks/core installed from its tarball', () => {
    let consumer: string;
    beforeAll(() => {
      consumer = mkdtempSync(join(tmpdir(), 'sms-webhooks-consumer-'));
      writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
      installTarball(consumer, 'core', tarball('core'));
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
      // One tsc program over core's declarations: 37 s measured on two loaded cores.
    }, 240_000);
  });
  // One describe with the build above: a second test file would build (and clean dist/) concurrently.
  describe('the adapters, redis, web and lambda installed from their tarballs with core', () => {
    const adapters = ['core', 'express', 'koa', 'fastify', 'web', 'lambda', 'redis'];
    let consumer: string;
    beforeAll(() => {
      consumer = mkdtempSync(join(tmpdir(), 'sms-webhooks-adapters-'));
      writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
      for (const dir of adapters) installTarball(consumer, dir, tarball(dir));
    }, 120_000);
    afterAll(() => rmSync(consumer, { recursive: true, force: true }));

    it('answer a signed delivery and a GET from CommonJS', () => {
      writeFileSync(
        join(consumer, 'adapters.cjs'),
        adaptersProgram(`
          const http = require('node:http');
          const core = require('@sms-webhooks/core');
          const { webhookMiddleware: expressMiddleware } = require('@sms-webhooks/express');
          const { webhookMiddleware: koaMiddleware } = require('@sms-webhooks/koa');
          const { webhookPlugin: fastifyPlugin } = require('@sms-webhooks/fastify');
          const { webhookHandler } = require('@sms-webhooks/web');
          const { lambdaHandler } = require('@sms-webhooks/lambda');
          const { RedisStore } = require('@sms-webhooks/redis');
          const express = require('express');
          const Koa = require('koa');
          const Fastify = require('fastify');`),
      );
      expect(run(process.execPath, ['adapters.cjs'], consumer)).toBe(adaptersExpected);
    });

    it('answer a signed delivery and a GET from ESM', () => {
      writeFileSync(
        join(consumer, 'adapters.mjs'),
        adaptersProgram(`
          import http from 'node:http';
          import * as core from '@sms-webhooks/core';
          import { webhookMiddleware as expressMiddleware } from '@sms-webhooks/express';
          import { webhookMiddleware as koaMiddleware } from '@sms-webhooks/koa';
          import fastifyPlugin from '@sms-webhooks/fastify';
          import { webhookHandler } from '@sms-webhooks/web';
          import { lambdaHandler } from '@sms-webhooks/lambda';
          import { RedisStore } from '@sms-webhooks/redis';
          import express from 'express';
          import Koa from 'koa';
          import Fastify from 'fastify';`),
      );
      expect(run(process.execPath, ['adapters.mjs'], consumer)).toBe(adaptersExpected);
    });
  });

  describe('`pnpm tarballs`', () => {
    it('is the build when a dist/ is stale (build-fresh.test.ts), then the packing', () => {
      const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
      expect(scripts.tarballs).toBe('node build-fresh.mjs && pnpm tarballs:pack');
      expect(scripts.build).toBe("pnpm -r --filter './packages/*' build && tsx build-types.ts");
      // The build above is fresh: `pnpm tarballs` now packs it without building again.
      expect(run(process.execPath, [join(root, 'build-fresh.mjs'), '--check'])).toBe(
        'every dist/ is fresh\n',
      );
    });

    it('wrote one tarball per package and nothing else, each with the LICENSE and no workspace: range left for npm to refuse', () => {
      expect(readdirSync(join(root, 'tarballs')).sort()).toEqual(
        packages.map((name) => basename(tarball(name))).sort(),
      );
      for (const name of packages) {
        const pkg = JSON.parse(readFileSync(join(root, 'packages', name, 'package.json'), 'utf8'));
        const tgz = tarball(name);
        const packed = run('tar', ['-xzOf', tgz, 'package/package.json']);
        expect(packed, tgz).not.toContain('workspace:');
        expect(JSON.parse(packed).name).toBe(pkg.name);
        expect(run('tar', ['-xzOf', tgz, 'package/LICENSE']), `${tgz}: the LICENSE`).toBe(license);
      }
    });

    it('no tarball names the private @sms-webhooks/internal: not in package.json, not in any built file', () => {
      // The workspace's manifests do name it: a devDependency of each package that bundles it in.
      const naming = packages.filter((name) =>
        readFileSync(join(root, 'packages', name, 'package.json'), 'utf8').includes(PRIVATE),
      );
      expect(naming.length).toBeGreaterThan(10);
      const unpacked = mkdtempSync(join(tmpdir(), 'sms-webhooks-unpacked-'));
      try {
        for (const tgz of readdirSync(join(root, 'tarballs'))) {
          const into = join(unpacked, tgz);
          mkdirSync(into);
          run('tar', ['-xzf', join(root, 'tarballs', tgz), '-C', into]);
          expect(readFileSync(join(into, 'package', 'package.json'), 'utf8'), tgz).not.toContain(PRIVATE);
          const built = readdirSync(join(into, 'package', 'dist'), { recursive: true, withFileTypes: true })
            .filter((entry) => entry.isFile())
            .map((entry) => join(entry.parentPath, entry.name));
          expect(built.length, tgz).toBeGreaterThan(0);
          expect(built.filter((file) => readFileSync(file, 'utf8').includes(PRIVATE))).toEqual([]);
        }
      } finally {
        rmSync(unpacked, { recursive: true, force: true });
      }
    });

    it('installs the CLI with its packed dependencies, and it runs', () => {
      const consumer = mkdtempSync(join(tmpdir(), 'sms-webhooks-cli-'));
      try {
        for (const dir of ['core', 'client', 'ops', 'emulator', 'cli'])
          installTarball(consumer, dir, tarball(dir));
        const cli = join(consumer, 'node_modules', '@sms-webhooks', 'cli', 'dist', 'bin.js');
        expect(run(process.execPath, [cli, '--version'], consumer)).toBe('0.1.0\n');
        expect(
          run(process.execPath, [cli, 'sign', '{}', '--secret', 'whsec_pack', '--timestamp', '1'], consumer),
        ).toMatch(/^t=1,v1=\S+\n$/);
      } finally {
        rmSync(consumer, { recursive: true, force: true });
      }
    });
  });

  // The Web build as a Worker or edge function gets it: from the tarballs, through package conditions.
  describe('the Web build from the tarballs', () => {
    let consumer: string;
    beforeAll(() => {
      consumer = mkdtempSync(join(tmpdir(), 'sms-webhooks-web-build-'));
      writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
      for (const dir of ['core', 'web']) installTarball(consumer, dir, tarball(dir));
    }, 120_000);
    afterAll(() => rmSync(consumer, { recursive: true, force: true }));

    it.each([
      ['Wrangler', WRANGLER_CONDITIONS],
      ['Vercel Edge', EDGE_LIGHT_CONDITIONS],
    ])('%s resolves core and core/adapter to the Web build, with no node:* import', async (_, conditions) => {
      writeFileSync(
        join(consumer, 'imports.ts'),
        "export * from '@sms-webhooks/web';\nexport * from '@sms-webhooks/core';\n",
      );
      const { code, inputs } = await bundleFor(consumer, 'imports.ts', conditions);
      const core = inputs.filter((path) => path.includes('@sms-webhooks/core/'));
      expect(core.length).toBeGreaterThan(0);
      expect(core.filter((path) => !path.includes('@sms-webhooks/core/dist/web/'))).toEqual([]);
      expect(code).not.toMatch(/from\s*["']node:|require\(/);
    });

    it('has types under those conditions: the Web ./adapter has handleWebRequest and no Node entry', () => {
      writeFileSync(
        join(consumer, 'types.ts'),
        `import { createReceiver, type WebhookEvent } from '@sms-webhooks/core';
        import { handleWebRequest } from '@sms-webhooks/core/adapter';
        import * as adapter from '@sms-webhooks/core/adapter';
        import { webhookHandler } from '@sms-webhooks/web';
        const receiver = createReceiver({ secret: 'whsec_x' });
        receiver.on('message.failed', (e: WebhookEvent<'message.failed'>) => e.data.to.toUpperCase());
        export const answer: Promise<Response> = handleWebRequest(receiver, new Request('http://x/'));
        export const handler = webhookHandler(receiver);
        // @ts-expect-error the Node entry is not in the Web build
        export const node = adapter.createNodeHandler;
        `,
      );
      const tsc = (conditions: string[]) =>
        run(
          bin('tsc'),
          [
            '--noEmit',
            '--strict',
            '--skipLibCheck',
            '--module',
            'esnext',
            '--moduleResolution',
            'bundler',
            '--customConditions',
            conditions.join(','),
            '--lib',
            'es2022,dom',
            'types.ts',
          ],
          consumer,
        );
      expect(tsc(WRANGLER_CONDITIONS)).toBe('');
      expect(tsc(EDGE_LIGHT_CONDITIONS)).toBe('');
    });

    it("runs the web README's Worker on workerd without nodejs_compat: a signed delivery is answered and handled", async () => {
      writeFileSync(join(consumer, 'worker.ts'), readmeWorker());
      const { code } = await bundleFor(consumer, 'worker.ts', WRANGLER_CONDITIONS);
      const secret = 'whsec_readme0123456789abcdef0123';
      const worker = await startWorker(code, [], { SMS_WEBHOOK_SECRET: secret });
      try {
        const d = createTestDelivery('message.failed', { secret });
        const send = () => worker.fetch('/', { method: 'POST', body: d.body, headers: d.headers });
        const res = await send();
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ received: true });
        // The claim is completed once the handler has finished (under ctx.waitUntil); from then on a
        // redelivery is a duplicate (before, it is 409 in_flight).
        let again = await send();
        for (let i = 0; i < 100 && again.status !== 200; i++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          again = await send();
        }
        expect(await again.json()).toEqual({ received: true, duplicate: true });
        const forged = createTestDelivery('message.failed', { secret: 'whsec_forged0123456789abcdef' });
        const refused = await worker.fetch('/', {
          method: 'POST',
          body: forged.body,
          headers: forged.headers,
        });
        expect(refused.status).toBe(400);
      } finally {
        await worker.stop();
      }
    }, 180_000);
  });

  // Last: attw has run on the tarballs, two at a time, while the tests above ran.
  it.each(packages)(
    '%s passes publint and are-the-types-wrong',
    async (name) => {
      const dir = join(root, 'packages', name);
      const { publint } = await import('publint');
      const { formatMessage } = await import('publint/utils');
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      const { messages } = await publint({ pkgDir: dir, strict: true });
      expect(messages.map((m) => formatMessage(m, pkg))).toEqual([]);
      const { stdout, stderr } = await attwReports.get(name)!;
      const json = stdout.indexOf('{');
      const report: AttwReport | null = json < 0 ? null : JSON.parse(stdout.slice(json));
      expect(report?.analysis?.entrypoints, `attw printed no report:\n${stdout}\n${stderr}`).toBeDefined();
      expect(report?.analysis?.problems ?? []).toEqual([]);
    },
    240_000,
  );
});

interface AttwRun {
  stdout: string;
  stderr: string;
}

interface AttwReport {
  analysis?: { problems?: unknown[]; entrypoints?: Record<string, unknown> };
}

/**
 * attw on one package's tarball: every resolution mode (node10, node16 from CJS and from ESM, bundler),
 * every subpath. It exits 1 when it finds a problem: its report is read either way, so the test shows the
 * problems. Asset subpaths (postgres's ./migration.sql) are files to read, not modules for TypeScript.
 */
function attw(name: string): Promise<AttwRun> {
  const pkg = JSON.parse(readFileSync(join(root, 'packages', name, 'package.json'), 'utf8'));
  const assets = Object.keys(pkg.exports ?? {}).filter((key) => /\.(sql|css|txt)$/.test(key));
  const exclude = assets.length > 0 ? ['--exclude-entrypoints', ...assets] : [];
  const args = [tarball(name), '--profile', 'strict', '--format', 'json', ...exclude];
  return new Promise((resolve) => {
    execFile(
      bin('attw'),
      args,
      { encoding: 'utf8', timeout: 240_000, maxBuffer: 64 << 20 },
      (_, stdout, stderr) => resolve({ stdout, stderr }),
    );
  });
}
