import { withTimeout } from '@sms-webhooks/internal';
import { deferred } from './helpers.js';

class Late extends Error {}

describe('withTimeout', () => {
  it('settles as the work does when it answers in time', async () => {
    await expect(withTimeout(Promise.resolve('ok'), 1000, () => new Late())).resolves.toBe('ok');
    const failed = new Error('refused');
    await expect(withTimeout(Promise.reject(failed), 1000, () => new Late())).rejects.toBe(failed);
  });

  it("rejects with makeError()'s error once ms have passed, and ignores the late answer", async () => {
    const work = deferred<string>();
    const started = performance.now();
    const bounded = withTimeout(work.promise, 50, () => new Late('no answer within 50 ms'));
    await expect(bounded).rejects.toThrow(Late);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    work.resolve('too late');
    await expect(bounded).rejects.toThrow('no answer within 50 ms');
  });

  it('hands back the work itself for Infinity', () => {
    const work = new Promise<never>(() => {});
    expect(withTimeout(work, Number.POSITIVE_INFINITY, () => new Late())).toBe(work);
  });
});
