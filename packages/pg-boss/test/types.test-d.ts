// Compiled by `tsc` in the test command, never run: a line that stops compiling fails the suite.
import { createReceiver } from '@sms-webhooks/core';
import type { WebhookHandlers as CoreWebhookHandlers, Dispatch } from '@sms-webhooks/core/queue';
import {
  createWorker,
  enqueueTo,
  listFailed,
  replayFailed,
  type WebhookHandlers,
} from '@sms-webhooks/pg-boss';
import { PostgresStore } from '@sms-webhooks/postgres';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { PgBoss as PgBoss12 } from 'pg-boss12';
import postgres from 'postgres';
import { expectTypeOf } from 'vitest';

const boss = new PgBoss('postgres://postgres@127.0.0.1:5432/app');
const store = new PostgresStore({ pool: new pg.Pool() });
expectTypeOf(enqueueTo(boss, { store })).toEqualTypeOf<Dispatch>();
// postgres.js stores hand out transactions too.
enqueueTo(boss, { store: new PostgresStore({ sql: postgres() }), attempts: 3 });
// @ts-expect-error the store is required: the claim and the job share its transaction
enqueueTo(boss, {});
const receiver = createReceiver({ secret: 'whsec_x', store, dispatch: enqueueTo(boss, { store }) });

// The map's own typing is core's (core/test/queue-types.test-d.ts): this is that type.
expectTypeOf<WebhookHandlers>().toEqualTypeOf<CoreWebhookHandlers>();
const handlers: WebhookHandlers = { 'message.failed': (event) => event.data.to };
void createWorker(handlers, boss, { store, concurrency: 4 });
void createWorker(receiver, boss, { onError: (_error, job) => job.data.event.id });
// @ts-expect-error not an event type
void createWorker({ 'message.unknown': () => {} }, boss);

void listFailed(boss).then((failed) => expectTypeOf(failed[0]!.eventId).toEqualTypeOf<string>());
void replayFailed(boss, 'evt_1', { store }).then((r) =>
  expectTypeOf(r.status).toEqualTypeOf<'replayed' | 'completed'>(),
);

// pg-boss 12 (a named export, other generics) fits the same functions.
const boss12 = new PgBoss12('postgres://postgres@127.0.0.1:5432/app');
expectTypeOf(enqueueTo(boss12, { store })).toEqualTypeOf<Dispatch>();
void createWorker(handlers, boss12, { store, onError: (_error, job) => job.retryCount });
void listFailed(boss12);
void replayFailed(boss12, 'evt_1', { store });
// @ts-expect-error not a PgBoss
enqueueTo({ send: 'no' }, { store });
