import { readFileSync } from 'node:fs';
import * as main from '@sms-webhooks/core';
import * as adapter from '@sms-webhooks/core/adapter';
import * as queue from '@sms-webhooks/core/queue';
import * as store from '@sms-webhooks/core/store';
import * as testing from '@sms-webhooks/core/testing';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const section = (from: string, to: string) => readme.slice(readme.indexOf(from), readme.indexOf(to));

describe('entry points', () => {
  it('the main entry holds what an application uses, and nothing for adapters', () => {
    expect(Object.keys(main).sort()).toEqual(
      [
        'EVENT_TYPES',
        'MemoryStore',
        'SmsWebhooksError',
        'WebhookHandlerError',
        'WebhookVerificationError',
        'createReceiver',
        'createTestDelivery',
        'createTestDeliveryAsync',
        'isKnownEventType',
        'isWebhookVerificationError',
        'signPayload',
        'signPayloadAsync',
        'verifySignature',
        'verifyWebhook',
      ].sort(),
    );
  });

  it("the core README's export list names every export of each entry", () => {
    const mainList = section('The main entry, `@sms-webhooks/core`', '`@sms-webhooks/core/adapter` is for');
    for (const name of Object.keys(main)) expect(mainList, name).toContain(`\`${name}\``);
    const adapterList = section('`@sms-webhooks/core/adapter` is for', '`@sms-webhooks/core/store` is for');
    for (const name of Object.keys(adapter)) expect(adapterList, name).toContain(name);
    const storeList = section('`@sms-webhooks/core/store` is for', '`@sms-webhooks/core/queue` is for');
    for (const name of Object.keys(store)) expect(storeList, name).toContain(name);
    const queueList = section('`@sms-webhooks/core/queue` is for', '`@sms-webhooks/core/instrumentation`');
    for (const name of Object.keys(queue)) {
      if (!(name in store)) expect(queueList, name).toContain(name);
    }
    const testingList = section('`@sms-webhooks/core/testing` holds', '## Testing your handlers');
    for (const name of Object.keys(testing)) {
      if (name !== 'resolveTestApi') expect(testingList, name).toContain(`\`${name}\``);
    }
  });

  it('store and queue authors have their own entries, and adapters do not see them', () => {
    expect(Object.keys(store).sort()).toEqual(
      ['claimThenOrder', 'isKeptDelivery', 'parseEvent', 'tenantKey'].sort(),
    );
    expect(typeof queue.DispatchTimeoutError).toBe('function');
    expect(typeof queue.LeaseKeeper).toBe('function');
  });

  it('adapter plumbing lives in ./adapter', () => {
    expect(typeof adapter.createNodeHandler).toBe('function');
    expect(typeof adapter.handleWebRequest).toBe('function');
    expect(typeof adapter.refuseEntry).toBe('function');
    expect('withTimeout' in adapter || 'LeaseKeeper' in adapter).toBe(false);
    expect('createNodeHandler' in main).toBe(false);
  });
});
