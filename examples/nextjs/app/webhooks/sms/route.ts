import { createReceiver } from '@sms-webhooks/core';
import { type WebHandler, webhookHandler } from '@sms-webhooks/web';
import { after } from 'next/server';

// POST /webhooks/sms on the Node.js runtime: core's Node build (node:crypto).
export const runtime = 'nodejs';

// Made on the first request, not at import: `next build` imports every route to read its config, and the
// secret is a run-time setting the build need not have.
let handler: WebHandler | undefined;

function webhooks(): WebHandler {
  const receiver = createReceiver({ secret: process.env.SMS_WEBHOOK_SECRET! });
  receiver.on('message.delivered', async (event) => {
    console.log(`nodejs: message ${event.data.id} delivered to ${event.data.to} (${event.id})`);
  });
  // The 200 goes out first; after() keeps the function alive until the handlers have finished.
  return webhookHandler(receiver, { waitUntil: (promise) => after(promise) });
}

export function POST(request: Request): Promise<Response> {
  handler ??= webhooks();
  return handler(request);
}
