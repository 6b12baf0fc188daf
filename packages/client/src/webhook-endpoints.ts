import type { AuthorizedRequest } from './client-request.js';
import type { WebhookDeliveryList, WebhookIn, WebhookList, WebhookOut } from './types.js';
import { validateWebhookId, validateWebhookIn } from './validate-input.js';

const webhookPath = (id: string) => `/v1/webhooks/${encodeURIComponent(id)}`;

/** The client's webhook methods: each checks its input, then makes one authorized request. */
export function webhookEndpoints(request: AuthorizedRequest, allowInsecureLoopback: boolean) {
  return {
    async createWebhook(input: WebhookIn): Promise<WebhookOut> {
      validateWebhookIn(input, allowInsecureLoopback);
      const body: WebhookIn = { url: input.url, events: input.events };
      if (input.description !== undefined) body.description = input.description;
      return (await request('POST', '/v1/webhooks', body)) as WebhookOut;
    },
    async listWebhooks(): Promise<WebhookList> {
      return (await request('GET', '/v1/webhooks')) as WebhookList;
    },
    async deleteWebhook(webhookId: string): Promise<void> {
      validateWebhookId(webhookId);
      await request('DELETE', webhookPath(webhookId));
    },
    async listDeliveries(webhookId: string): Promise<WebhookDeliveryList> {
      validateWebhookId(webhookId);
      return (await request('GET', `${webhookPath(webhookId)}/deliveries`)) as WebhookDeliveryList;
    },
    async testWebhook(webhookId: string): Promise<unknown> {
      validateWebhookId(webhookId);
      return request('POST', `${webhookPath(webhookId)}/test`);
    },
  };
}
