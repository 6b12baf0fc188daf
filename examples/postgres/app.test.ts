import type { AddressInfo } from 'node:net';
import { createTestDelivery } from '@sms-webhooks/core';
import { createDatabase, type TestDatabase } from '@sms-webhooks/test-helpers/postgres-db';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp, migrate } from './app.js';

const secret = 'whsec_examplepostgres0123456789abcde';
let db: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  db = await createDatabase('example');
  pool = new pg.Pool({ connectionString: db.url });
  pool.on('error', () => {}); // as server.ts does: an idle connection's error must not crash the process
  await migrate(pool);
  await migrate(pool); // a second start finds everything in place
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

it('stores each delivered message once, however often it is delivered, and refuses a forgery', async () => {
  const lines: string[] = [];
  const { server, receiver } = createApp({ secret, pool, log: (l) => lines.push(l) });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const d = createTestDelivery('message.delivered', { secret });
    const post = () => fetch(`${base}/webhooks/sms`, { method: 'POST', headers: d.headers, body: d.body });
    // The service's retry racing the first delivery, then a late one.
    const [a, b] = await Promise.all([post(), post()]);
    expect([a.status, b.status].sort()).toEqual(
      b.status === 409 || a.status === 409 ? [200, 409] : [200, 200],
    );
    expect(await (await post()).json()).toEqual({ received: true, duplicate: true });

    const rows = await (await fetch(`${base}/messages`)).json();
    expect(rows).toEqual([
      {
        event_id: d.event.id,
        message_id: d.event.data.id,
        recipient: d.event.data.to,
        delivered_at: new Date(d.event.created_at).toISOString(),
      },
    ]);
    expect(lines.filter((l) => l.startsWith('stored'))).toEqual([
      `stored ${d.event.id}: message ${d.event.data.id} to ${d.event.data.to}`,
    ]);

    const forged = createTestDelivery('message.delivered', { secret: 'whsec_not_the_right_one_000000' });
    const refused = await fetch(`${base}/webhooks/sms`, {
      method: 'POST',
      headers: forged.headers,
      body: forged.body,
    });
    expect(refused.status).toBe(400);
    expect((await pool.query('SELECT count(*)::int AS n FROM delivered_messages')).rows[0].n).toBe(1);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await receiver.close();
  }
});
