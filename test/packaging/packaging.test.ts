import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adaptersExpected, adaptersProgram } from './adapters-program.js';
import { bin, installTarball, pack, pnpm, root, run } from './consumer.js';

const packages = readdirSync(join(root, 'packages')).sort();

// The published shape: every package builds to ESM + CJS with types for both, and resolves under
// node16 from either module system (attw) with a clean package.json (publint).
describe('published packages', () => {
  beforeAll(() => {
    // Start from no dist/, as a fresh clone does: the packages build in parallel and each tsup dts
    // program takes in every file under the root (tsconfig.build.json has no include), so a package's
    // clean step deleting its old dist/ while another's program is reading it fails with TS6053.
    for (const name of packages)
      rmSync(join(root, 'packages', name, 'dist'), { recursive: true, force: true });
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
      const tgz = pack('core', consumer);
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
  // One describe with the build above: a second test file would build (and clean dist/) concurrently.
  describe('the adapters, redis and web installed from their tarballs with core', () => {
    const adapters = ['core', 'express', 'koa', 'fastify', 'web', 'redis'];
    let consumer: string;
    beforeAll(() => {
      consumer = mkdtempSync(join(tmpdir(), 'sms-webhooks-adapters-'));
      writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
      for (const dir of adapters) installTarball(consumer, dir, pack(dir, consumer));
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
          import { RedisStore } from '@sms-webhooks/redis';
          import express from 'express';
          import Koa from 'koa';
          import Fastify from 'fastify';`),
      );
      expect(run(process.execPath, ['adapters.mjs'], consumer)).toBe(adaptersExpected);
    });
  });
});
