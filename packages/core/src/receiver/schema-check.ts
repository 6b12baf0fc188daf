import { describeError } from '../base/describe-error.js';
import type { AnyWebhookEvent } from '../verify/event-types.js';
import {
  checkWithSchema,
  issuePaths,
  type SchemaIssue,
  type StandardSchemaV1,
} from '../verify/standard-schema.js';
import type { AnyWebhookHandler, CheckedEntry, Registered } from './handler-registry.js';

/** Whether any handler of an event was registered with a schema. */
export function hasSchemas(registered: readonly Registered[]): boolean {
  return registered.some((r) => typeof r !== 'function');
}

/**
 * Runs every schema of the event's handlers on `event.data` (each distinct schema once). All pass: the
 * handlers to run, each checked one given an event whose `data` is its schema's output. Any fails: the
 * issues of every failing schema, and no handler.
 */
export async function checkPayload(
  registered: readonly Registered[],
  event: AnyWebhookEvent,
): Promise<{ handlers: AnyWebhookHandler[] } | { issues: SchemaIssue[] }> {
  const schemas = new Set<StandardSchemaV1>();
  for (const r of registered) if (typeof r !== 'function') schemas.add(r.schema);
  const outcomes = await Promise.all(
    [...schemas].map(async (schema) => {
      try {
        return await checkWithSchema(schema, event.data);
      } catch (error) {
        // A schema that throws (a refine with a bug) fails the check rather than the whole request.
        return { issues: [{ path: [], message: `the schema threw: ${describeError(error)}` }] };
      }
    }),
  );
  const issues = outcomes.flatMap((o) => ('issues' in o ? o.issues : []));
  if (issues.length > 0) return { issues };
  const events = new Map<StandardSchemaV1, AnyWebhookEvent>();
  [...schemas].forEach((schema, i) => {
    events.set(schema, { ...event, data: (outcomes[i] as { value: unknown }).value } as AnyWebhookEvent);
  });
  return {
    handlers: registered.map((r) => (typeof r === 'function' ? r : bind(r, events.get(r.schema)!))),
  };
}

/** The handler called with its checked event; named as the handler, for the instrumentation's spans. */
function bind({ handler }: CheckedEntry, checked: AnyWebhookEvent): AnyWebhookHandler {
  const bound: AnyWebhookHandler = (_event, ctx) => handler(checked, ctx);
  Object.defineProperty(bound, 'name', { value: handler.name });
  return bound;
}

/** A queued event whose `data` no longer passes its handlers' schemas (the worker checks again). */
export class PayloadSchemaError extends Error {
  override readonly name = 'PayloadSchemaError';
  readonly code = 'payload_schema_mismatch';

  constructor(
    readonly issues: readonly SchemaIssue[],
    event: AnyWebhookEvent,
  ) {
    super(`${event.id} (${event.type}) does not match its handlers' schemas at ${issuePaths(issues)}`);
  }
}
