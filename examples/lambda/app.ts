import { createReceiver, type DedupeStore, type Logger } from '@sms-webhooks/core';
import { lambdaHandler } from '@sms-webhooks/lambda';

export interface ExampleOptions {
  /** The webhook secret (whsec_…); several while rotating. */
  secret: string | string[];
  /** Default a MemoryStore, which lives as long as one Lambda instance: pass a RedisStore or PostgresStore. */
  store?: DedupeStore;
  /** Where the function says what it received (and the receiver's warnings). Default console.log. */
  log?: (line: string) => void;
}

/** The function: handlers registered once per Lambda instance, reused across its invocations. */
export function createHandler({ secret, store, log = console.log }: ExampleOptions) {
  const logger: Logger = {
    warn: (...args) => log(`warn: ${args.join(' ')}`),
    error: (...args) => log(`error: ${args.join(' ')}`),
  };
  // Lambda freezes the process once the answer is returned: answer after the handlers, so a failure is a
  // 500 and the service delivers the event again.
  const receiver = createReceiver({ secret, store, logger, respond: 'after-handlers' });
  receiver.on(['message.sent', 'message.delivered'], async (event, ctx) => {
    log(
      `${event.type} ${event.id}: message ${event.data.id} to ${event.data.to} (attempt ${ctx.attempt ?? '?'})`,
    );
  });
  receiver.on('message.failed', async (event) => {
    log(`${event.type} ${event.id}: ${event.data.to} failed: ${event.data.error?.code ?? 'unknown'}`);
  });
  receiver.on('webhook.test', async (event) => {
    log(`${event.type} ${event.id}: the service says hello`);
  });
  return lambdaHandler(receiver);
}
