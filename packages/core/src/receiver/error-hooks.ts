import type { Logger } from '../verify/logger.js';
import { describeError } from './describe-error.js';
import type { WebhookHandlerError } from './handler-error.js';

export type ErrorHandler = (error: WebhookHandlerError) => unknown;

/** The `onError` hooks: each handler failure goes to every hook, and to the log when there is none. */
export class ErrorHooks {
  readonly #hooks: ErrorHandler[] = [];

  constructor(readonly logger: Logger) {}

  add(hook: ErrorHandler): void {
    if (typeof hook !== 'function') throw new TypeError('sms-webhooks: onError(handler) needs a function.');
    this.#hooks.push(hook);
  }

  /** Hooks are contained: one that throws or rejects is logged, never rethrown. */
  report(error: WebhookHandlerError): void {
    if (this.#hooks.length === 0) {
      this.logger.error(`sms-webhooks: ${error.message}`);
      return;
    }
    for (const hook of this.#hooks) {
      try {
        Promise.resolve(hook(error)).catch((e) => this.hookFailed('onError', e));
      } catch (e) {
        this.hookFailed('onError', e);
      }
    }
  }

  hookFailed(name: string, error: unknown): void {
    this.logger.error(`sms-webhooks: an ${name} hook failed: ${describeError(error)}`);
  }
}
