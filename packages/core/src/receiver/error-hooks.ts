import { optionError } from '@sms-webhooks/internal';
import { describeError } from '../base/describe-error.js';
import type { Logger } from '../base/logger.js';
import { HandlerTimeoutError, type WebhookHandlerError } from './handler-error.js';

/** An `onError` hook: called with each delivery's handler failures; what it throws or returns is ignored. */
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
      // With each handler's stack, so the log says where it failed; a time-out's stack is only ours.
      const stacks = error.errors.map((e) => (e instanceof HandlerTimeoutError ? '' : `\n${withStack(e)}`));
      this.logger.error(`sms-webhooks: ${error.message}${stacks.join('')}`);
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
    this.logger.error(`sms-webhooks: an ${name} hook failed: ${withStack(error)}`);
  }
}

/** An error with its stack and its causes' (the stack starts with name and message), else as one line. */
function withStack(error: unknown, depth = 0): string {
  if (!(error instanceof Error) || !error.stack) return describeError(error);
  const cause =
    error.cause !== undefined && depth < 3 ? `\nCaused by: ${withStack(error.cause, depth + 1)}` : '';
  return `${error.stack}${cause}`;
}
