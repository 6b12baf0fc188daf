import type { Exception } from '@opentelemetry/api';

/** A low-cardinality name for an error (`error.type`): its stable code, else its class name. */
export function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.length > 0) return code;
  if (error instanceof Error) return error.name;
  return '_OTHER';
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What `span.recordException` takes: the error itself, or its message when a non-Error was thrown. */
export function asException(error: unknown): Exception {
  return error instanceof Error ? error : errorMessage(error);
}
