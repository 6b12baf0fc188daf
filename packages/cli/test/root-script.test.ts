import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pnpm } from '../../../test/packaging/consumer.js';
import { listenInProcess } from './in-process-listen.js';

// Issue 27, point 1: from a clone, `pnpm sms-webhooks …` runs the CLI from its sources (no build step),
// as the top README says; `pnpm exec sms-webhooks` found no command and `npx sms-webhooks` went to the registry.
describe('pnpm sms-webhooks (the root script)', () => {
  it('runs the CLI from source with the arguments given', () => {
    expect(pnpm(['--silent', 'sms-webhooks', '--version'])).toBe('0.1.0\n');
    expect(
      pnpm(['--silent', 'sms-webhooks', 'sign', '{}', '--secret', 'whsec_root', '--timestamp', '1']),
    ).toMatch(/^t=1,v1=[0-9a-f]{64}\n$/);
  }, 60_000);
});

// `listen`'s banner suggests the next command the way the reader runs this CLI: from the workspace's root
// script in a clone (where `npx sms-webhooks` would go to the registry), else through npx.
describe("listen's banner", () => {
  const banner = async (env: Record<string, string>) => {
    const stateFile = join(mkdtempSync(join(tmpdir(), 'sms-webhooks-banner-')), 'state.json');
    const listen = listenInProcess(
      ['--forward-to', 'http://127.0.0.1:9/webhooks/sms', '--port', '0', '--state-file', stateFile],
      env,
    );
    try {
      return (await listen.waitFor(/^Then from another shell: .*/))[0];
    } finally {
      await listen.stop();
    }
  };

  it('says `pnpm sms-webhooks trigger` when the workspace root script started it', async () => {
    const line = await banner({
      npm_package_name: 'sms-webhooks-workspace',
      npm_lifecycle_event: 'sms-webhooks',
    });
    expect(line).toMatch(
      /^Then from another shell: pnpm sms-webhooks trigger message\.delivered \(SMS_API_BASE_URL=http:\/\/127\.0\.0\.1:\d+\)\. Ctrl-C stops\./,
    );
  });

  it('says `npx sms-webhooks trigger` otherwise (installed from npm)', async () => {
    expect(await banner({})).toMatch(
      /^Then from another shell: npx sms-webhooks trigger message\.delivered /,
    );
  });
});
