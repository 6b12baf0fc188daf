import { MemoryStore } from '@sms-webhooks/core';
import { recordCompletion } from '@sms-webhooks/core/queue';
import { expect, it } from 'vitest';
import { captureLogger } from './helpers.js';

const job = (token: string | undefined) => ({ key: 'acme/evt_1', token, eventId: 'evt_1' });
const record = (store: MemoryStore, token: string | undefined, logger = captureLogger()) =>
  recordCompletion(store, job(token), 60_000, logger, '@sms-webhooks/test', 'raise the lease.');

it("completes the job's own claim", async () => {
  const store = new MemoryStore();
  expect(await store.claim('acme/evt_1', 'job-token', 60_000)).toBe('claimed');
  await record(store, 'job-token');
  expect(await store.claim('acme/evt_1', 'probe', 60_000)).toBe('completed');
});

it('a claim that ran out (or none) is recorded under a fresh one', async () => {
  for (const token of ['gone-token', undefined]) {
    const store = new MemoryStore();
    await record(store, token);
    expect(await store.claim('acme/evt_1', 'probe', 60_000)).toBe('completed');
  }
});

it("another delivery's claim is left alone, and the warning says whose and what to raise", async () => {
  const store = new MemoryStore();
  await store.claim('acme/evt_1', 'redelivery', 60_000);
  const logger = captureLogger();
  await record(store, 'gone-token', logger);
  expect(logger.text()).toContain(
    '@sms-webhooks/test: evt_1 is done but another claim holds its dedupe key, so the completion was not recorded; raise the lease.',
  );
  expect(await store.release('acme/evt_1', 'redelivery')).toBe(true);
});

it('a store that fails is logged, never thrown: the handlers ran', async () => {
  const store = new MemoryStore();
  store.complete = async () => {
    throw new Error('store down');
  };
  const logger = captureLogger();
  await expect(record(store, 'job-token', logger)).resolves.toBeUndefined();
  expect(logger.text()).toContain('@sms-webhooks/test: could not record evt_1 as done: Error: store down');
});
