import { optionError } from '@sms-webhooks/internal';
import type { Clock } from '../base/clock.js';
import type { ErrorHooks } from './error-hooks.js';
import type { Instrumentation } from './instrumentation.js';
import type { ReceiverResponse } from './responses.js';
import { SampledLog } from './sampled-log.js';

/** One refused request, as `onRefused` hooks see it: the answer's status and stable code. */
export interface Refusal {
  /** The status answered (400, 401, 405, 408, 409, 413, 503 …). */
  status: number;
  /** The answer's error code, e.g. `signature_mismatch`. */
  code: string;
}

/** An `onRefused` hook: called for each refused request; what it throws or returns is ignored. */
export type RefusalHandler = (refusal: Refusal) => unknown;

function codeOf(response: ReceiverResponse): string {
  return (response.json as { error?: { code?: string } }).error?.code ?? 'unknown';
}

/**
 * Every refused request, wherever it was answered (the pipeline's 400s, 409s and 503s, the entries' 405,
 * 408, 413 and 503 `overloaded`): counted for the `onRefused` hooks and the instrumentation, and logged sampled, since an
 * unauthenticated client decides how many there are.
 */
export class Refusals {
  readonly #hooks: RefusalHandler[] = [];
  readonly #sampled: SampledLog;

  constructor(
    readonly errors: ErrorHooks,
    readonly instrumentation: Instrumentation | undefined,
    clock: Clock,
  ) {
    this.#sampled = new SampledLog(errors.logger, clock);
  }

  /** The sampled log, shared with the pipeline's other warnings a sender can repeat. */
  get sampled(): SampledLog {
    return this.#sampled;
  }

  add(hook: RefusalHandler): void {
    if (typeof hook !== 'function') throw optionError('sms-webhooks', 'onRefused(handler) needs a function.');
    this.#hooks.push(hook);
  }

  /** A refusal of the pipeline (the instrumentation sees it through the delivery's observer). */
  refuse(response: ReceiverResponse, detail?: string): ReceiverResponse {
    const code = codeOf(response);
    this.#sampled.warn(`${code} refusals`, () => `delivery refused (${code}): ${detail ?? response.status}`);
    this.errors.callEach('onRefused', this.#hooks, { status: response.status, code });
    return response;
  }

  /** A refusal an entry answered before the pipeline: no delivery observer saw it, so count it here. */
  refuseUnread(response: ReceiverResponse): ReceiverResponse {
    const refused = this.instrumentation?.refused;
    if (refused !== undefined) refused.call(this.instrumentation, codeOf(response), response.status);
    return this.refuse(response);
  }
}
