import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { serve } from './node-server.js';

const DEV_SECRET = 'whsec_dev_only_not_a_real_secret_0000';

let secret = process.env.SMS_WEBHOOK_SECRET?.trim();
if (!secret) {
  secret = DEV_SECRET;
  console.warn(
    'SMS_WEBHOOK_SECRET is not set: using a fake development secret. Set it to your webhook secret (whsec_…).',
  );
}

const { app, receiver } = createApp({ secret });
const server = serve(app.fetch);
const port = Number(process.env.PORT ?? 3000);
server.listen(port);
await once(server, 'listening').catch((error: Error) => {
  console.error(`example-hono cannot listen on port ${port} (${error.message}): set PORT to a free port`);
  process.exit(1);
});
console.log(
  `example-hono listening on http://localhost:${(server.address() as AddressInfo).port}/webhooks/sms`,
);

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  console.log(`${signal}: closing the server and finishing in-flight handlers`);
  server.close();
  server.closeIdleConnections();
  const { unfinished } = await receiver.close(10_000);
  console.log(unfinished.length === 0 ? 'drained, bye' : `gave up on ${unfinished.join(', ')}`);
  process.exit(unfinished.length === 0 ? 0 : 1);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
