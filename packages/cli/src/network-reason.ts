/**
 * fetch says only `fetch failed`; the reason (`connect ECONNREFUSED 127.0.0.1:4010`) is on its cause, or
 * on the cause's errors when several addresses were tried.
 */
export function networkReason(error: unknown, timeoutMs?: number): string {
  if ((error as Error)?.name === 'TimeoutError' && timeoutMs !== undefined)
    return `no answer within ${timeoutMs} ms`;
  const cause = (error as { cause?: { message?: string; code?: string; errors?: { message?: string }[] } })
    ?.cause;
  const message = cause?.message || cause?.errors?.map((e) => e.message).join('; ') || '';
  if (!cause || message === '') return (error as Error)?.message ?? String(error);
  return cause.code && !message.includes(cause.code) ? `${cause.code} ${message}` : message;
}
