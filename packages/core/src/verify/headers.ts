/** Node's `IncomingHttpHeaders`, a plain record, or a Fetch `Headers` object. */
export type HeaderSource =
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | {
      /** The header's value, or null when absent (a Fetch `Headers` joins repeats with a comma). */
      get(name: string): string | null;
    };

export interface HeaderNames {
  signature: string;
  eventId: string;
  eventType: string;
  attempt: string;
}

export const DEFAULT_HEADER_PREFIX = 'x-service';

export function headerNames(prefix: string = DEFAULT_HEADER_PREFIX): HeaderNames {
  const p = prefix.toLowerCase();
  return {
    signature: `${p}-signature`,
    eventId: `${p}-event-id`,
    eventType: `${p}-event-type`,
    attempt: `${p}-delivery-attempt`,
  };
}

/**
 * Reads one header; `name` must be lower case. Repeated headers (arrays) come back as an array so
 * callers can decide what a repeat means for that header.
 */
export function readHeader(headers: HeaderSource, name: string): string | readonly string[] | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const value = record[name];
  if (value !== undefined) return value;
  // Node lower-cases header names; hand-built records in tests and other runtimes may not.
  for (const key in record) {
    if (key.length === name.length && key.toLowerCase() === name) return record[key];
  }
  return undefined;
}

/** The service numbers its attempts 1 to 6 (spec: retries). */
export const MAX_ATTEMPT = 6;

/**
 * The delivery-attempt header as a number from 1 to 6, `undefined` when absent, and `null` when present
 * but not one of those (the header is not signed, so anyone replaying a body can set it).
 */
export function parseAttempt(value: string | readonly string[] | undefined): number | undefined | null {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value : value.length === 1 ? value[0]! : '';
  if (text.length !== 1) return null;
  const n = text.charCodeAt(0) - 48;
  return n >= 1 && n <= MAX_ATTEMPT ? n : null;
}
