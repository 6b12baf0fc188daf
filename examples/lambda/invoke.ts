import { createTestDelivery } from '@sms-webhooks/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { createHandler } from './app.js';

// The function without AWS: one signed test delivery as the HTTP API (payload 2.0) event API Gateway or a
// Function URL passes, the same event again (a duplicate), and a forged one.
const secret = process.env.SMS_WEBHOOK_SECRET?.trim() || 'whsec_dev_only_not_a_real_secret_0000';
const handler = createHandler({ secret });

function httpApiEvent(body: string, headers: Record<string, string>): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'POST /webhooks/sms',
    rawPath: '/webhooks/sms',
    rawQueryString: '',
    headers,
    requestContext: { http: { method: 'POST', path: '/webhooks/sms' } },
    body,
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2;
}

const d = createTestDelivery('message.delivered', { secret });
for (const label of ['delivery', 'redelivery']) {
  const answer = await handler(httpApiEvent(d.body, d.headers));
  console.log(`${label}: ${answer.statusCode} ${answer.body}`);
}
const forged = createTestDelivery('message.delivered', { secret: 'whsec_not_the_one_0000000000000000' });
const refused = await handler(httpApiEvent(forged.body, forged.headers));
console.log(`forged: ${refused.statusCode} ${refused.body}`);
