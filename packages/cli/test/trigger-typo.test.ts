import { runCli } from './helpers.js';

// Issue 27, point 5: a misspelt event type names the close one, as the option errors do.
describe('a misspelt event type', () => {
  it.each([
    ['trigger', 'message.deliverd', 'message.delivered'],
    ['trigger', 'sms.complete', 'sms.completed'],
    ['send', 'mesage.failed', 'message.failed'],
  ])('%s %s suggests %s, exit 2', async (command, typo, meant) => {
    const args = command === 'send' ? [typo, '--url', 'http://127.0.0.1:9/x', '--secret', 'whsec_x'] : [typo];
    const res = await runCli([command, ...args]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`unknown event type; did you mean ${meant}? Use one of message.sent,`);
  });

  it('lists the types without a guess when nothing is close', async () => {
    const res = await runCli(['trigger', 'payment.refunded']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('unknown event type. Use one of message.sent,');
    expect(res.stderr).not.toContain('did you mean');
  });
});
