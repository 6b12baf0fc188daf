// `@sms-webhooks/core/adapter`: for framework adapters. The Node entry every adapter calls, and what the
// Web build's ./adapter has too. Store, queue and instrumentation authors: ../store.ts, ../queue.ts,
// ../instrumentation.ts.
export {
  createNodeEntry,
  createNodeHandler,
  type NodeEntry,
  type NodeExchange,
  type NodeHandler,
  type NodeHandlerOptions,
  writeNodeResponse,
} from './node-handler.js';
export * from './web.js';
