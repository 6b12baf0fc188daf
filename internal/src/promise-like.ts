/**
 * Whether `value` is a thenable: what a function that may answer either way returned (a handler's result
 * that an observer passes on unchanged, a `tenant` function that must not be async).
 */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}
