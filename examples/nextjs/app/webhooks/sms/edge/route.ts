import { createReceiver } from '@sms-webhooks/core';
import { type WebHandler, webhookHandler } from '@sms-webhooks/web';
import { after } from 'next/server';

// POST /webhooks/sms/edge on the Edge runtime: core's Web build (Web Crypto), which Next picks through
// the `edge-light` package condition.
export const runtime = 'edge';

let handler: WebHandler | undefined;

function webhooks(): WebHandler {
  const receiver = createReceiver({ secret: process.env.SMS_WEBHOOK_SECRET! });
  receiver.on('message.delivered', async (event) => {
    console.log(`edge: message ${event.data.id} delivered to ${event.data.to} (${event.id})`);
  });
  return webhookHandler(receiver, { waitUntil: (promise) => after(promise) });
}

export function POST(request: Request): Promise<Response> {
  handler ??= webhooks();
  return handler(request);
}
