import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type INestApplication, Logger } from '@nestjs/common';
import { createTestDelivery } from '@sms-webhooks/core';
import { codeBlocks } from '../../../test/docs/markdown-blocks.js';
import { SECRET } from './helpers.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const readme = codeBlocks(readFileSync(join(root, 'packages/nestjs/README.md'), 'utf8'), 'README.md');
const setup = readme.filter((b) => b.section === 'Setup' && b.lang === 'ts');
const program = setup.map((b) => b.code).join('');

describe('packages/nestjs/README.md', () => {
  it('runs every block or says why not (a registry install, a fragment that a test here mirrors)', () => {
    expect(setup.map((b) => b.directive.kind)).toEqual(['run', 'continues']);
    for (const block of readme.filter((b) => !setup.includes(b))) {
      expect(block.directive, `line ${block.line}`).toMatchObject({ kind: 'skip' });
    }
  });

  it('the setup app starts, hands a signed delivery to its provider, and closes', async () => {
    // Imported by the test runner, which emits decorator metadata as tsc and SWC do (this package's
    // tsconfig.json asks for it). `export { app }` is the only line added, so the test can reach it.
    const dir = join(root, 'packages/nestjs/test/.tmp');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `setup-${process.pid}.ts`);
    writeFileSync(file, `${program}\nexport { app };\n`);
    vi.stubEnv('SMS_WEBHOOK_SECRET', SECRET);
    vi.stubEnv('PORT', '0');
    Logger.overrideLogger(false);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    let imported: { app: INestApplication };
    try {
      imported = await import(file);
    } finally {
      // Nothing left behind for biome or tsc to read on the next run.
      rmSync(file, { force: true });
    }
    const { app } = imported;
    const d = createTestDelivery('message.delivered', { secret: SECRET });
    try {
      const { port } = app.getHttpServer().address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/webhooks/sms`, {
        method: 'POST',
        headers: d.headers,
        body: d.body,
      });
      expect(res.status).toBe(200);
    } finally {
      await app.close(); // waits for the handler, which runs after the 200
      vi.unstubAllEnvs();
    }
    const lines = log.mock.calls.map((args) => String(args[0]));
    expect(lines).toEqual([`message ${d.event.data.id} to ${d.event.data.to}: delivered`]);
    log.mockRestore();
  });
});
