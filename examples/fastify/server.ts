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
const { app, receiver } = await createApp({
  secret,
  slowHandlerMs: Number(process.env.EXAMPLE_SLOW_HANDLER_MS ?? 0),
});
const port = Number(process.env.PORT ?? 3001);
await app.listen({ port, host: process.env.HOST ?? '0.0.0.0' }).catch((error: Error) => {
  console.error(`example-fastify cannot listen on port ${port} (${error.message}): set PORT to a free port`);
  process.exit(1);
});
const address = app.server.address();
console.log(
  `example-fastify listening on http://localhost:${typeof address === 'object' && address ? address.port : port}/webhooks/sms`,
);

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  console.log(`${signal}: closing the server and finishing in-flight handlers`);
  await app.close(); // the plugin's onClose hook drains the receiver
  const { unfinished } = await receiver.close(1_000);
  console.log(unfinished.length === 0 ? 'drained, bye' : `gave up on ${unfinished.join(', ')}`);
  process.exit(unfinished.length === 0 ? 0 : 1);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
