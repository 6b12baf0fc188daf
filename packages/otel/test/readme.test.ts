import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const here = fileURLToPath(new URL('../', import.meta.url));

/** The README's first ts block, exactly as written there. */
function readmeBlock(): string {
  const readme = readFileSync(`${here}README.md`, 'utf8');
  const block = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (block === undefined) throw new Error('packages/otel/README.md has no ts block');
  return block;
}

// Appended to the block: one signed delivery through the receiver it built, then the spans flushed.
const DRIVE = `
import { createTestDelivery } from '@sms-webhooks/core';
const delivery = createTestDelivery('message.delivered', { secret: process.env.SMS_WEBHOOK_SECRET! });
const answer = await receiver.handle({ rawBody: delivery.body, headers: delivery.headers });
await receiver.drain();
await (trace.getTracerProvider() as unknown as { getDelegate(): { forceFlush(): Promise<void> } })
  .getDelegate()
  .forceFlush();
console.log('README-ANSWER', answer.status);
process.exit(0);
`;

describe('packages/otel/README.md', () => {
  it('its example runs as written: the SDK set up, a delivery traced to the console', async () => {
    // Inside the package, so the SDK packages resolve from its devDependencies.
    const dir = `${here}.readme-run`;
    mkdirSync(dir, { recursive: true });
    try {
      writeFileSync(`${dir}/readme.mts`, readmeBlock() + DRIVE);
      const { stdout } = await promisify(execFile)(`${root}node_modules/.bin/tsx`, [`${dir}/readme.mts`], {
        cwd: root,
        env: { ...process.env, SMS_WEBHOOK_SECRET: 'whsec_readme_0123456789abcdef0123' },
      });
      expect(stdout).toContain('README-ANSWER 200');
      expect(stdout).toContain("name: 'sms-webhooks delivery'");
      expect(stdout).toContain("'sms_webhooks.outcome': 'received'");
      expect(stdout).toMatch(/\+\d+ got msg_/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
