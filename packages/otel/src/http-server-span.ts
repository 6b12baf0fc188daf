import { type Context, createContextKey } from '@opentelemetry/api';

// The key under which `@opentelemetry/instrumentation-http` puts the request's HTTP server span
// (`setRPCMetadata` of `@opentelemetry/core`), where the Express, Koa and Fastify instrumentations
// find it to name its route. `createContextKey` is `Symbol.for(description)`, so this is the same key
// `getRPCMetadata` reads, without depending on `@opentelemetry/core` (whose releases each accept
// one minor of the API).
const RPC_METADATA = createContextKey('OpenTelemetry SDK Context Key RPC_METADATA');

/**
 * Whether ours leaves to the HTTP instrumentation what it records: the request is already traced by it
 * (its server span carries the method, the user agent and the status, and its
 * `http.server.request.duration` times the answer), unless `httpDuplicates` asks for them anyway.
 */
export function leavesToHttp(ctx: Context, httpDuplicates: boolean): boolean {
  if (httpDuplicates) return false;
  const metadata = ctx.getValue(RPC_METADATA) as { type?: unknown; span?: unknown } | undefined;
  return metadata?.type === 'http' && metadata.span !== undefined;
}
