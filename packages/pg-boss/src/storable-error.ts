// What jsonb refuses in a string: NUL, and half of a surrogate pair on its own.
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this finds.
const JSONB_REFUSED = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function jsonbText(text: string): string {
  return text.replace(JSONB_REFUSED, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The failure as pg-boss stores it (the job's `output`, jsonb): its name, code and message, with what
 * jsonb refuses escaped. A handler's error built from the event's text, or the `event` a
 * WebhookHandlerError carries, would otherwise make pg-boss's fail statement itself fail, and the job
 * would never reach the failed state.
 */
export function storableError(error: unknown): Error {
  const e = (error ?? {}) as { name?: unknown; code?: unknown };
  const stored = new Error(jsonbText(error instanceof Error ? error.message : String(error))) as Error & {
    code?: string;
  };
  if (typeof e.name === 'string') stored.name = jsonbText(e.name);
  if (typeof e.code === 'string') stored.code = jsonbText(e.code);
  return stored;
}
