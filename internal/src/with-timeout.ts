/**
 * Settles as `work` does, or rejects with `makeError()` once `ms` have passed first; `Infinity` never
 * times out. The work itself is not stopped: its late result is dropped. The timer is unref'd, so a
 * pending time-out does not keep the process alive on its own.
 */
export function withTimeout<T>(work: Promise<T>, ms: number, makeError: () => unknown): Promise<T> {
  if (ms === Number.POSITIVE_INFINITY) return work;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(makeError()), ms);
    // Deno's and the browsers' setTimeout return a number, with no unref.
    (timer as { unref?: () => void }).unref?.();
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
