import type { Receiver } from '@sms-webhooks/core';
import { checkReceiver, handleWebRequest, type WaitUntil } from '@sms-webhooks/core/adapter';
import { optionError } from '@sms-webhooks/internal';
import type { Context } from 'aws-lambda';
import { type LambdaHttpEvent, type LambdaHttpResult, readEvent } from './lambda-event.js';
import { toRequest } from './to-request.js';
import { toResult } from './to-result.js';

const NAME = '@sms-webhooks/lambda';
const ACKNOWLEDGED: NonNullable<LambdaHandlerOptions['answerBeforeHandlers']> = 'handlers-may-never-finish';

/** Options of {@link lambdaHandler}. */
export interface LambdaHandlerOptions {
  /**
   * Lambda freezes the process once the handler returns, so by default the answer waits for the handlers
   * of an accepted event, even in the receiver's 'immediately' mode. Set to 'handlers-may-never-finish' to
   * return the 200 first: the handlers then run in a process frozen right after, finish during a later
   * invocation of the same instance, or never (the service will not redeliver an event it got a 2xx for).
   */
  answerBeforeHandlers?: 'handlers-may-never-finish';
}

/**
 * The handler {@link lambdaHandler} returns: export it as the function's handler. It answers in the shape
 * the event's source expects (API Gateway v1 or v2, a Function URL, an ALB) and never rejects.
 */
export type LambdaWebhookHandler = (event: LambdaHttpEvent, context?: Context) => Promise<LambdaHttpResult>;

/**
 * `export const handler = lambdaHandler(receiver)`: an AWS Lambda handler for API Gateway (REST and HTTP
 * APIs), Function URLs and Application Load Balancers. It turns the event into a Web `Request` and core's
 * handleWebRequest does the rest (method check, body limit, every answer); this only reads the event and
 * writes the answer in the shape its source expects.
 *
 * @example
 * ```ts
 * import { createReceiver } from '@sms-webhooks/core';
 * import { lambdaHandler } from '@sms-webhooks/lambda';
 *
 * // Outside the handler: made once per Lambda instance, kept across its invocations.
 * const receiver = createReceiver({ secret: process.env.SMS_WEBHOOK_SECRET!, respond: 'after-handlers' });
 * receiver.on('message.delivered', async (event) => console.log(event.data.id, 'delivered'));
 *
 * export const handler = lambdaHandler(receiver);
 * ```
 */
export function lambdaHandler(receiver: Receiver, options: LambdaHandlerOptions = {}): LambdaWebhookHandler {
  checkReceiver(NAME, receiver, 'lambdaHandler(receiver) needs a receiver from createReceiver()');
  const { answerBeforeHandlers } = options;
  if (answerBeforeHandlers !== undefined && answerBeforeHandlers !== ACKNOWLEDGED) {
    throw optionError(
      NAME,
      `answerBeforeHandlers must be '${ACKNOWLEDGED}' (to return before the handlers finish, knowing Lambda freezes them), or left out; got ${JSON.stringify(answerBeforeHandlers)}.`,
      'ERR_SMS_LAMBDA_OPTIONS',
    );
  }
  const waitForHandlers = answerBeforeHandlers === undefined;

  return async (event) => {
    const parts = readEvent(event);
    const running: Promise<unknown>[] = [];
    const waitUntil: WaitUntil | undefined = waitForHandlers ? (run) => running.push(run) : undefined;
    const { params, path } = parts;
    const response = await handleWebRequest(receiver, toRequest(parts), { waitUntil, params, url: path });
    // The receiver's background run never rejects: it ends after the handlers, their retries and the
    // dedupe record. Its timers (a retry's wait, lease renewals) do not keep Node's event loop alive, and
    // Lambda's runtime ends the invocation (Runtime.NodeJsExit) once the loop is empty: hold it open.
    if (running.length > 0) await keepingAlive(Promise.all(running));
    return toResult(response, parts);
  };
}

/** Waits for `work` with a referenced timer open, so an otherwise empty event loop does not exit first. */
async function keepingAlive<T>(work: Promise<T>): Promise<T> {
  const alive = setInterval(() => {}, 60_000);
  try {
    return await work;
  } finally {
    clearInterval(alive);
  }
}
