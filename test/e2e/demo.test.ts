import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { collectOutput } from '@sms-webhooks/test-helpers/collect-output';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('pnpm demo', () => {
  it('runs by itself, exits 0 within 30 s, and shows the retry, the duplicate and the records', async () => {
    const { code, stdout, stderr } = await collectOutput(
      spawn(process.execPath, ['--import', 'tsx', 'examples/demo/demo.ts'], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    // The app failed one delivery on purpose, the emulator retried it with attempt 2 and it went through.
    expect(stdout).toMatch(
      /message\.delivered evt_\w+… attempt 1: HTTP 500 retry in \d+ ms \(the service waits 1 min; the demo runs 600× faster\)/,
    );
    expect(stdout).toMatch(/message\.delivered evt_\w+… attempt 2: HTTP 200 delivered/);
    expect(stdout).toContain('the app answered: {"received":true,"duplicate":true}');
    expect(stdout).toContain('handlers ran for the duplicate: no');
    expect(stdout).toMatch(/message\.delivered {2}evt_\w+… {2}delivered {2}pending {2}2 {9}200/);
    // The table says why every row reads `pending`.
    expect(stdout).toContain(
      "status:  the record's own field, `pending` on every row: the service shows `pending`",
    );
    expect(stdout).toMatch(
      /webhook\.test ×1, message\.sent ×3, message\.delivered ×3, message\.failed ×1, message\.replied ×1, sms\.completed ×1/,
    );
    expect(stdout).toMatch(/Demo finished in [\d.]+ s/);
  }, 30_000);
});
