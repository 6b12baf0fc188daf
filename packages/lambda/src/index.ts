export type { LambdaHttpEvent, LambdaHttpResult } from './lambda-event.js';
export { type LambdaHandlerOptions, type LambdaWebhookHandler, lambdaHandler } from './lambda-handler.js';
