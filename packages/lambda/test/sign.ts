import { createHmac, randomBytes } from 'node:crypto';

export const secret = 'whsec_lambda0123456789abcdef01234567';

/**
 * A delivery as the service sends one (spec: envelope, `t=…,v1=…` over `${t}.` + body, event headers),
 * signed here with node:crypto rather than with core's own signPayload.
 */
export function signedDelivery(type = 'message.delivered', key = secret) {
  const id = `evt_${randomBytes(12).toString('hex')}`;
  const now = new Date();
  const body = JSON.stringify({
    id,
    object: 'event',
    type,
    api_version: 'v1',
    created_at: now.toISOString(),
    test: true,
    data: {
      id: `msg_${randomBytes(8).toString('hex')}`,
      sms_id: `sms_${randomBytes(8).toString('hex')}`,
      to: '+15555550123',
      status: 'delivered',
      error: null,
      kind: 'utility',
      updated_at: now.toISOString(),
      metadata: { order_id: 'ord_1234' },
    },
  });
  const t = Math.floor(Date.now() / 1000);
  const v1 = createHmac('sha256', key).update(`${t}.${body}`).digest('hex');
  return {
    id,
    body,
    headers: {
      'Content-Type': 'application/json',
      'X-Service-Signature': `t=${t},v1=${v1}`,
      'X-Service-Event-Id': id,
      'X-Service-Event-Type': type,
      'X-Service-Delivery-Attempt': '1',
    } as Record<string, string>,
  };
}
