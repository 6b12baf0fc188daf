import type { Receiver } from '@sms-webhooks/core';
import { runAdapterContract } from '@sms-webhooks/core/testing';
import { SMS_WEBHOOK_RECEIVER, SmsWebhooksModule } from '@sms-webhooks/nestjs';
import { PLATFORMS, SECRET, startApp } from './helpers.js';

// The HTTP rows every adapter must pass (bytes unchanged, 405, 413, 408, every response, dedupe,
// after-handlers 500, …), through the module as an app mounts it: the contract's receiver replaces the
// module's own with Nest's overrideProvider, so the route and its platform wiring are the module's.
for (const platform of PLATFORMS) {
  runAdapterContract(`nestjs on ${platform}`, {
    async start(receiver: Receiver, { path }) {
      const { origin, close } = await startApp(
        platform,
        { imports: [SmsWebhooksModule.forRoot({ secret: SECRET, path })] },
        { override: (b) => b.overrideProvider(SMS_WEBHOOK_RECEIVER).useValue(receiver) },
      );
      return { url: `${origin}${path}`, close };
    },
  });
}
