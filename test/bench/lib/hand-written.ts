import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * What a careful developer writes by hand for this scheme: split the header, check the timestamp,
 * HMAC-SHA256 over `${t}.` + body, constant-time compare, parse. No envelope checks, no dedupe.
 */
export function handVerify(body: Buffer, header: unknown, secret: string, tolerance = 300): unknown {
  if (typeof header !== 'string') throw new Error('no signature');
  let t = '';
  let v1 = '';
  for (const part of header.split(',')) {
    if (part.startsWith('t=')) t = part.slice(2);
    else if (part.startsWith('v1=')) v1 = part.slice(3);
  }
  if (Math.abs(Date.now() / 1000 - Number(t)) > tolerance) throw new Error('stale');
  const expected = createHmac('sha256', secret).update(`${t}.`).update(body).digest();
  const given = Buffer.from(v1, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(expected, given)) throw new Error('bad signature');
  return JSON.parse(body.toString('utf8'));
}
