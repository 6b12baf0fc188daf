import { describeError } from '../base/describe-error.js';
import type { Logger } from '../base/logger.js';
import { optionError } from '../base/option-checks.js';
import type { WebhookHandlerError } from './handler-error.js';

export type ErrorHandler = (error: WebhookHandlerError) => unknown;

/** The `onError` hooks: each handler failure goes to every hook, and to the log when there is none. */
export class ErrorHooks {
  readonly #hooks: ErrorHandler[] = [];

  constructor(readonly logger: Logger) {}

  add(hook: ErrorHandler): void {
    if (typeof hook !== 'function') throw optionError('sms-webhooks', 'onError(handler) needs a function.');
    this.#hooks.push(hook);
  }

  /** Hooks are contained: one that throws or rejects is logged, never rethrown. */
  report(error: WebhookHandlerError): void {
    if (this.#hooks.length === 0) {
      this.logger.error(`sms-webhooks: ${error.message}`);
      return;
    }
    this.callEach('onError', this.#hooks, error);
  }

  /** Calls each hook with `args`: one that throws or rejects is logged, never rethrown. */
  callEach<A extends unknown[]>(name: string, hooks: readonly ((...args: A) => unknown)[], ...args: A): void {
    for (const hook of hooks) {
      try {
        Promise.resolve(hook(...args)).catch((e: unknown) => this.hookFailed(name, e));
      } catch (e) {
        this.hookFailed(name, e);
      }
    }
  }

  hookFailed(name: string, error: unknown): void {
    this.logger.error(`sms-webhooks: an ${name} hook failed: ${describeError(error)}`);
  }
}
