import { pnpm } from '../../../test/packaging/consumer.js';

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
