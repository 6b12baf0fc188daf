import { createTestDelivery } from '@sms-webhooks/core';
import { describe, expect, it } from 'vitest';
import { findLeaks, signaturesOf } from './helpers/log-leaks.js';

// The load and fault tests trust findLeaks to read the instances' stderr; a checker that never finds
// anything would make those assertions pass vacuously, so it gets tests of its own.
const SECRET = 'whsec_LeakCheckerSelfTest_0a1b2c3d';

describe('findLeaks', () => {
  const d = createTestDelivery('message.delivered', { secret: SECRET });
  const [signature] = signaturesOf([d]);

  it('takes the full v1 hex from each delivery', () => {
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(d.headers['x-service-signature']).toContain(`v1=${signature}`);
  });

  it('finds the secret, the secret without whsec_, and a signature inside a longer hex run or upper-cased', () => {
    expect(findLeaks(`error: bad ${SECRET}`, SECRET, [])).toEqual([SECRET, SECRET.slice('whsec_'.length)]);
    expect(findLeaks('key LeakCheckerSelfTest_0a1b2c3d', SECRET, [])).toHaveLength(1);
    expect(findLeaks(`expected=abc${signature}def`, SECRET, [signature!])).toHaveLength(1);
    expect(findLeaks(`v1=${signature!.toUpperCase()}`, SECRET, [signature!])).toHaveLength(1);
  });

  it('passes a log with neither, even with other hex and a truncated signature', () => {
    const log = `[redis-instance error] 503 for ${d.event.id} ${'ab'.repeat(40)} v1=${signature!.slice(0, 63)}`;
    expect(findLeaks(log, SECRET, [signature!])).toEqual([]);
  });
});
