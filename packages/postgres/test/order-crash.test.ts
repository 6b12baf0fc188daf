/**
 * `order` with the app's own write in `store.transaction`: the object's version advances inside that
 * transaction, so an instance killed with SIGKILL at any point of the handler never leaves a version
 * advanced without its write (or a write without its version). Then the service's retry runs the event
 * on another instance, and an older status arriving afterwards is stale.
 */
import { createTestDelivery, type TestDelivery } from '@sms-webhooks/core';
import { PostgresStore } from '@sms-webhooks/postgres';
import {
  CLIENTS,
  createDatabase,
  secret,
  sleep,
  type TestDatabase,
} from '@sms-webhooks/test-helpers/postgres-db';
import pg from 'pg';
import { CRASH_POINTS } from './instance.js';
import { deliver, supervised } from './service.js';

const LEASE_MS = 600;
let db: TestDatabase;
let admin: pg.Client;

beforeAll(async () => {
  db = await createDatabase('order_crash');
  admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  await new PostgresStore({ query: (t, v) => admin.query(t, v) }).migrate();
});

afterAll(async () => {
  await admin?.end();
  await db?.drop();
});

function status(type: 'message.sent' | 'message.delivered', message: string, second: number) {
  const updated_at = new Date(Date.parse('2026-11-26T09:00:00Z') + second * 1000).toISOString();
  return createTestDelivery(type, { secret, data: { id: message, updated_at } as never });
}

describe.concurrent('order: kill -9 inside the transactional handler', () => {
  it.each(CLIENTS)(
    '%s: at every crash point, the version advances together with the write, never alone',
    async (client) => {
      const table = `order_business_${client.replace(/\W/g, '_')}`;
      await admin.query(`CREATE TABLE ${table} (event_id text NOT NULL, instance text NOT NULL)`);
      const pool = supervised({ name: client, url: db.url, client, table, leaseMs: LEASE_MS, order: true });
      const check: string[] = [];
      try {
        for (const point of CRASH_POINTS) {
          const message = `msg_${client.replace(/\W/g, '')}_${point.replace(/\W/g, '')}`;
          const delivered = status('message.delivered', message, 2) as TestDelivery<'message.delivered'>;
          const sent = status('message.sent', message, 1) as unknown as TestDelivery<'message.delivered'>;
          const instance = await pool.current();
          instance.child.send({ type: 'crash', id: delivered.event.id, point });
          const first = await deliver(instance.url, delivered, 1);
          expect(first.status, `${point}: the instance died`).toBe(0);
          await instance.exited;

          // Right after the kill: a committed version has its write, and a write has its version.
          const { rows: writes } = await admin.query(`SELECT 1 FROM ${table} WHERE event_id = $1`, [
            delivered.event.id,
          ]);
          const { rows: versions } = await admin.query(
            `SELECT version FROM sms_webhook_events_order WHERE key = $1 AND version IS NOT NULL`,
            [`message:${message}`],
          );
          check.push(`${point}: write ${writes.length}, version ${versions.length}`);
          expect(versions.length, `${point}: version without write, or write without version`).toBe(
            writes.length,
          );

          // The service's retries: 409 while the dead claim's lease runs, then handled (or a duplicate).
          for (let attempt = 2; ; attempt++) {
            if (attempt > 40) throw new Error(`${point}: never answered 200`);
            const answer = await deliver((await pool.current()).url, delivered, Math.min(attempt, 6));
            if (answer.status === 200) break;
            await sleep(LEASE_MS / 3);
          }
          const after = await admin.query(`SELECT 1 FROM ${table} WHERE event_id = $1`, [delivered.event.id]);
          expect(after.rows, `${point}: the write exactly once`).toHaveLength(1);
          // The older status, arriving now, is stale: the version advanced with the write.
          const older = await fetch((await pool.current()).url, {
            method: 'POST',
            body: sent.body,
            headers: sent.headers,
          });
          expect(await older.json(), point).toEqual({ received: true, stale: true });
        }
        expect(check.some((c) => c.endsWith('write 0, version 0'))).toBe(true);
        expect(check.some((c) => c.endsWith('write 1, version 1'))).toBe(true);
      } finally {
        await pool.stop();
      }
    },
    240_000,
  );
});
