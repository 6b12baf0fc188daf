import { type Context, createContextKey } from '@opentelemetry/api';

// The key under which `@opentelemetry/instrumentation-http` puts the request's HTTP server span
// (`setRPCMetadata` of `@opentelemetry/core`), where the Express, Koa and Fastify instrumentations
// find it to name its route. `createContextKey` is `Symbol.for(description)`, so this is the same key
// `getRPCMetadata` reads, without depending on `@opentelemetry/core` (whose releases each accept
// one minor of the API).
const RPC_METADATA = createContextKey('OpenTelemetry SDK Context Key RPC_METADATA');

/**
 * Whether the request is already traced by the HTTP instrumentation: its server span carries the
 * method, the user agent and the status, and its `http.server.request.duration` times the answer.
 */
export function underHttpServerSpan(ctx: Context): boolean {
  const metadata = ctx.getValue(RPC_METADATA) as { type?: unknown; span?: unknown } | undefined;
  return metadata?.type === 'http' && metadata.span !== undefined;
}
