import { firstTime } from '../base/log-once.js';
import type { AdapterReceiver } from '../receiver/receiver.js';
import {
  payloadTooLarge,
  RAW_BODY_UNAVAILABLE,
  type ReceiverResponse,
  refusal,
} from '../receiver/responses.js';

/**
 * Why an entry (Node or Web) answers a request without reaching `receiver.handle`: the one model both
 * use, so each refusal has one answer wherever it happens.
 */
export type EntryRefusal =
  /** Not a POST. */
  | 'method'
  /** Over `maxBodyBytes`, declared or read. */
  | 'too-large'
  /** The body did not arrive within `bodyTimeoutMs` (a client trickling bytes). */
  | 'timed-out'
  /** The stream failed mid-body (Web: the platform could not read it). */
  | 'unreadable'
  /** Another body parser read the body first: its raw bytes are gone. */
  | 'already-used';

/** What reading a body under the receiver's limits came to, in either entry. */
export type BodyRead<Body> =
  /** The whole body. */
  | { body: Body }
  /** Answer this refusal. */
  | { refused: EntryRefusal }
  /** The client went away mid-body: nobody is left to answer. */
  | { aborted: true };

const UNREADABLE = refusal('payload_invalid', 'The request body could not be read.');
const METHOD_NOT_ALLOWED = refusal('method_not_allowed', 'Webhook deliveries are POST requests.');

/**
 * The one table from a refusal to its answer. `hint` is the entry's own remedy for a consumed body
 * (the framework's way to mount the route first), logged once per receiver.
 */
export function entryRefusalResponse(
  receiver: AdapterReceiver,
  reason: EntryRefusal,
  hint: string,
): ReceiverResponse {
  const { maxBodyBytes, bodyTimeoutMs, logger } = receiver.options;
  switch (reason) {
    case 'method':
      return METHOD_NOT_ALLOWED;
    case 'too-large':
      return payloadTooLarge(maxBodyBytes);
    case 'timed-out':
      return refusal('request_timeout', `The body did not arrive within ${bodyTimeoutMs} ms.`);
    case 'unreadable':
      return UNREADABLE;
    case 'already-used':
      if (firstTime(receiver, 'consumed body hint')) logger.error(hint);
      return RAW_BODY_UNAVAILABLE;
  }
}

/** The answer to `refusal`, counted and logged by the receiver like its own refusals. */
export function refuseEntry(receiver: AdapterReceiver, reason: EntryRefusal, hint: string): ReceiverResponse {
  return receiver.refuse(entryRefusalResponse(receiver, reason, hint));
}
