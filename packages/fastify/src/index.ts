import { webhookPlugin } from './webhook-plugin.js';

export type { WebhookPluginOptions } from './options.js';
export { webhookPlugin };
export default webhookPlugin;
