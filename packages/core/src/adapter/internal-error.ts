import type { Receiver } from '../receiver/receiver.js';
import { INTERNAL_ERROR, type ReceiverResponse } from '../receiver/responses.js';

/**
 * What both entry points answer when `receiver.handle` rejects, which its own policy never does: the same
 * 500 on every framework (each framework's error handler answers differently, and Fastify's default one
 * puts `error.message` in the body), with the error in the log only.
 */
export function internalError(receiver: Receiver, error: unknown): ReceiverResponse {
  receiver.options.logger.error(
    'sms-webhooks: receiver.handle() failed, so the delivery was answered 500 internal_error and the service will retry it. This is a bug (in sms-webhooks or in a wrapper around the receiver); please report it with this error:',
    error,
  );
  return INTERNAL_ERROR;
}
