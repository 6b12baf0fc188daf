import { describeValue, optionError } from '@sms-webhooks/internal';
import { describeError } from '../base/describe-error.js';
import type { AnyWebhookEvent } from '../verify/event-types.js';
import {
  checkWithSchema,
  isStandardSchema,
  issuePaths,
  type SchemaIssue,
  type StandardSchemaV1,
} from '../verify/standard-schema.js';
import type { ErrorHooks } from './error-hooks.js';
import { WebhookHandlerError } from './handler-error.js';
import {
  type AnyWebhookHandler,
  type CheckedEntry,
  hasSchemas,
  type Registered,
} from './handler-registry.js';
import type { Refusals } from './refusals.js';
import { type ReceiverResponse, refusal } from './responses.js';

/** A verified event whose `data` failed a handler's schema: what `onInvalid` hooks see of it (no data). */
export interface InvalidEvent {
  /** The event's id. */
  id: string;
  /** The event's type. */
  type: string;
  /** The delivery-attempt header (1 to 6); at 6 the service gives up after this answer. */
  attempt: number | undefined;
}

/** An `onInvalid` hook: called with each event whose `data` failed a schema, and the schema's issues. */
export type InvalidEventHandler = (event: InvalidEvent, issues: readonly SchemaIssue[]) => unknown;

/** `on(type, handler)` or `on(type, schema, handler)`: the schema, if any, and the handler, checked. */
export function handlerArguments(args: readonly unknown[]): {
  schema: StandardSchemaV1 | undefined;
  handler: AnyWebhookHandler;
} {
  const [schema, handler] = args.length > 1 ? args : [undefined, args[0]];
  if (schema !== undefined && !isStandardSchema(schema)) {
    throw optionError(
      'sms-webhooks',
      `on(type, schema, handler): \`schema\` must be a Standard Schema v1 validator (a zod 4, valibot or arktype schema has a \`~standard\` property), got ${describeValue(schema)}.`,
    );
  }
  if (typeof handler !== 'function') {
    const afterSchema = schema === undefined && isStandardSchema(args[0]);
    throw optionError(
      'sms-webhooks',
      afterSchema
        ? 'on(type, schema, handler) needs a handler after the schema.'
        : 'on(type, handler) needs a function.',
    );
  }
  return { schema, handler: handler as AnyWebhookHandler };
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
  const schemas = [...new Set(registered.flatMap((r) => (typeof r === 'function' ? [] : [r.schema])))];
  const outcomes = await Promise.all(
    schemas.map(async (schema) => {
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
  const events = new Map<StandardSchemaV1, AnyWebhookEvent>(
    schemas.map((schema, i) => [
      schema,
      { ...event, data: (outcomes[i] as { value: unknown }).value } as AnyWebhookEvent,
    ]),
  );
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

/** The pipeline's check step, with the `onInvalid` hooks. */
export class SchemaCheck {
  readonly hooks: InvalidEventHandler[] = [];

  constructor(
    readonly refusals: Refusals,
    readonly errors: ErrorHooks,
  ) {}

  /**
   * The handlers to run, or 422 `payload_schema_mismatch`: the service retries it for 14.6 h, time to fix
   * a schema, and since nothing was claimed, the first retry after the fix runs as a new event.
   */
  async handlers(
    event: AnyWebhookEvent,
    registered: readonly Registered[],
    attempt: number | null | undefined,
  ): Promise<readonly AnyWebhookHandler[] | ReceiverResponse> {
    const checked = await checkPayload(registered, event);
    if ('handlers' in checked) return checked.handlers;
    const { issues } = checked;
    const invalid = { id: event.id, type: event.type, attempt: attempt ?? undefined }; // null: unreadable
    this.errors.callEach('onInvalid', this.hooks, invalid, issues);
    // Paths only, here and in the log: a schema library's message may quote the value, personal data.
    const message = `Event ${event.id} (${event.type}) does not match its handler's schema at ${issuePaths(issues)}; nothing was processed, retry once the schema is fixed.`;
    return this.refusals.refuse(refusal('payload_schema_mismatch', message), message);
  }
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

/** A queue worker's handlers, checked as a delivery's are; a failure rejects with a WebhookHandlerError. */
export async function queuedHandlers(
  registered: readonly Registered[],
  event: AnyWebhookEvent,
): Promise<readonly AnyWebhookHandler[]> {
  if (!hasSchemas(registered)) return registered as readonly AnyWebhookHandler[];
  const checked = await checkPayload(registered, event);
  if ('handlers' in checked) return checked.handlers;
  throw new WebhookHandlerError([new PayloadSchemaError(checked.issues, event)], event);
}
