import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { createApp, migrate } from './app.js';

const DEV_SECRET = 'whsec_dev_only_not_a_real_secret_0000';
const secret = process.env.SMS_WEBHOOK_SECRET?.trim() || DEV_SECRET;
if (secret === DEV_SECRET) {
  console.warn('SMS_WEBHOOK_SECRET is not set: using a fake development secret.');
}
const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const pool = new pg.Pool({ connectionString: databaseUrl });
pool.on('error', (error) => console.error(`idle database connection failed: ${error.message}`));
await migrate(pool);

const { server, receiver } = createApp({ secret, pool });
const port = Number(process.env.PORT ?? 3000);
server.listen(port);
await once(server, 'listening').catch((error: Error) => {
  console.error(`example-postgres cannot listen on port ${port} (${error.message}): set PORT to a free port`);
  process.exit(1);
});
console.log(
  `example-postgres listening on http://localhost:${(server.address() as AddressInfo).port}/webhooks/sms (rows: GET /messages)`,
);

async function shutdown(): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  await closed;
  await receiver.close(10_000);
  await pool.end(); // the store never ends the pool it was given
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown());
process.once('SIGINT', () => void shutdown());
