import { readFileSync } from 'node:fs';
import * as main from '@sms-webhooks/core';
import * as adapter from '@sms-webhooks/core/adapter';
import * as testing from '@sms-webhooks/core/testing';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const section = (from: string, to: string) => readme.slice(readme.indexOf(from), readme.indexOf(to));

describe('entry points', () => {
  it('the main entry holds what an application uses, and nothing for adapters', () => {
    expect(Object.keys(main).sort()).toEqual(
      [
        'DEFAULT_TOLERANCE_SECONDS',
        'EVENT_TYPES',
        'MemoryStore',
        'WebhookHandlerError',
        'WebhookVerificationError',
        'createReceiver',
        'createTestDelivery',
        'isKnownEventType',
        'isWebhookVerificationError',
        'signPayload',
        'verifySignature',
        'verifyWebhook',
      ].sort(),
    );
  });

  it("the core README's export list names every export of each entry", () => {
    const mainList = section('The main entry, `@sms-webhooks/core`', '`@sms-webhooks/core/adapter` is for');
    for (const name of Object.keys(main)) expect(mainList, name).toContain(`\`${name}\``);
    const adapterList = section('`@sms-webhooks/core/adapter` is for', '`@sms-webhooks/core/testing` holds');
    for (const name of Object.keys(adapter)) expect(adapterList, name).toContain(name);
    const testingList = section('`@sms-webhooks/core/testing` holds', '## Testing your handlers');
    for (const name of Object.keys(testing)) {
      if (name !== 'resolveTestApi') expect(testingList, name).toContain(`\`${name}\``);
    }
  });

  it('adapter plumbing lives in ./adapter', () => {
    expect(typeof adapter.createNodeHandler).toBe('function');
    expect(typeof adapter.handleWebRequest).toBe('function');
    expect(adapter.METHOD_NOT_ALLOWED.status).toBe(405);
    expect('createNodeHandler' in main).toBe(false);
  });
});
