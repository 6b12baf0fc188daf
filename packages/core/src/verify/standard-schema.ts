// The Standard Schema v1 interface (https://standardschema.dev), typed here so that core depends on no
// schema library: zod 4, valibot and arktype schemas all carry this `~standard` property.

/** A validator of any library that implements Standard Schema v1 (zod 4, valibot, arktype …). */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    /** Checks `value`; resolves with the output, or with the issues. */
    readonly validate: (
      value: unknown,
      options?: { readonly libraryOptions?: Record<string, unknown> | undefined } | undefined,
    ) => StandardSchemaResult<Output> | Promise<StandardSchemaResult<Output>>;
    /** Types only (no value at run time): how the output type is inferred. */
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

/** What a Standard Schema's `validate` returns: the output, or the issues. */
export type StandardSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{
        readonly message: string;
        readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
      }>;
    };

/**
 * One reason a payload failed its schema: where (`path`, keys from `data` down) and the schema library's
 * message. The failing value itself is never kept: it may be personal data.
 */
export interface SchemaIssue {
  /** Keys from `data` down to the failing value; empty for `data` itself. */
  readonly path: readonly (string | number)[];
  /** The schema library's message. */
  readonly message: string;
}

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const props = (value as { '~standard'?: { version?: unknown; validate?: unknown } } | null)?.['~standard'];
  return props?.version === 1 && typeof props.validate === 'function';
}

function keyOf(segment: PropertyKey | { readonly key: PropertyKey }): string | number {
  const key = typeof segment === 'object' ? segment.key : segment;
  return typeof key === 'symbol' ? String(key) : key;
}

/** The value at `path` inside `root`, or undefined. */
function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value;
}

/**
 * The message without the failing value: valibot (`received "+4915…"`) and arktype (`(was "+4915…")`)
 * quote it. Values shorter than 3 characters are left, since replacing `1` would garble the text and
 * identifies no one.
 */
function withoutValue(message: string, value: unknown): string {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'bigint') return message;
  const raw = String(value);
  if (raw.length < 3) return message;
  return message.replaceAll(JSON.stringify(raw), '[value]').replaceAll(raw, '[value]');
}

/** The schema's output for `value`, or its issues reduced to paths and messages, the value cut out. */
export async function checkWithSchema(
  schema: StandardSchemaV1,
  value: unknown,
): Promise<{ value: unknown } | { issues: SchemaIssue[] }> {
  const result = await schema['~standard'].validate(value);
  if (result.issues === undefined) return { value: result.value };
  return {
    issues: result.issues.map((issue) => {
      // Array.from: arktype's path is an Array subclass with a cache of its own, which `map` would keep.
      const path = Array.from(issue.path ?? [], keyOf);
      return { path, message: withoutValue(String(issue.message), valueAt(value, path)) };
    }),
  };
}

/** `data.status, data.error.code`: an issue's place, for logs and answers, which never carry messages. */
export function issuePaths(issues: readonly SchemaIssue[]): string {
  const paths = [...new Set(issues.map((i) => ['data', ...i.path].join('.')))];
  // A schema can report hundreds of issues; a log line or an answer needs the first few.
  const more = paths.length > 10 ? ` and ${paths.length - 10} more` : '';
  return paths.slice(0, 10).join(', ') + more;
}
