/**
 * The base of the stores', the queue hand-offs' and ops' errors (`PostgresStoreError`, `RedisStoreError`,
 * `ReplayError`, `PgBossHandOffError`, `RabbitHandOffError`, `OpsError`): a stable `code` and a message
 * that begins with the package that threw it. Match on `code` rather than `instanceof`: the ESM and CJS
 * builds, or two versions of a package, have a class each.
 *
 * @example
 * ```ts
 * class MyStoreError extends SmsWebhooksError<'ERR_MY_STORE_DOWN'> {
 *   static override readonly package = 'my-store';
 *   override readonly name = 'MyStoreError';
 * }
 * new MyStoreError('ERR_MY_STORE_DOWN', 'no answer.').message; // 'my-store: no answer.'
 * ```
 */
export class SmsWebhooksError<Code extends string = string> extends Error {
  /**
   * The package whose messages the class begins with, such as `@sms-webhooks/redis`. A subclass sets
   * it once, so each place that throws writes only what went wrong.
   */
  static readonly package: string = '@sms-webhooks/core';
  /** The subclass's own name, such as `RedisStoreError`. */
  override readonly name: string = 'SmsWebhooksError';
  /** What went wrong, stable across versions; each package documents its own codes. */
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(`${(new.target as typeof SmsWebhooksError).package}: ${message}`, options);
    this.code = code;
  }
}
