import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';

const DEV_SECRET = 'whsec_dev_only_not_a_real_secret_0000';

let secret = process.env.SMS_WEBHOOK_SECRET?.trim();
if (!secret) {
  secret = DEV_SECRET;
  console.warn(
    'SMS_WEBHOOK_SECRET is not set: using a fake development secret. Set it to your webhook secret (whsec_…).',
  );
}

// EXAMPLE_SLOW_HANDLER_MS: handlers wait this long, to watch a graceful shutdown finish them.
const { server, receiver } = createApp({
  secret,
  slowHandlerMs: Number(process.env.EXAMPLE_SLOW_HANDLER_MS ?? 0),
});
const port = Number(process.env.PORT ?? 3000);
server.listen(port);
await once(server, 'listening').catch((error: Error) => {
  console.error(`example-express cannot listen on port ${port} (${error.message}): set PORT to a free port`);
  process.exit(1);
});
console.log(
  `example-express listening on http://localhost:${(server.address() as AddressInfo).port}/webhooks/sms`,
);

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  console.log(`${signal}: closing the server and finishing in-flight handlers`);
  // Stop accepting and let requests being answered finish first: receiver.close() shuts the store down,
  // and a request still in flight after that would find it closed.
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  await closed;
  const { unfinished } = await receiver.close(10_000);
  console.log(unfinished.length === 0 ? 'drained, bye' : `gave up on ${unfinished.join(', ')}`);
  process.exit(unfinished.length === 0 ? 0 : 1);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
