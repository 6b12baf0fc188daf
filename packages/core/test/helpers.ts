import type { DedupeStore } from '@sms-webhooks/core';

export { captureLogger, deferred, sleep } from '@sms-webhooks/test-helpers';

export const secret = 'whsec_c0ffee0123456789abcdef0123456789';

/** A store whose every operation fails, as a store whose server is down does. */
export function brokenStore(message = 'connect ECONNREFUSED 127.0.0.1:6399'): DedupeStore {
  const fail = () => Promise.reject(new Error(message));
  return { localKeys: false, claim: fail, complete: fail, release: fail };
}
