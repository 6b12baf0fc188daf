import { Injectable } from '@nestjs/common';
import { createTestDelivery, type HandlerContext, type WebhookEvent } from '@sms-webhooks/core';
import { OnSmsWebhook, SmsWebhooksModule } from '@sms-webhooks/nestjs';
import { describe, expect, it } from 'vitest';
import { PLATFORMS, post, startApp } from './helpers.js';

const SECRETS: Record<string, string> = {
  acme: 'whsec_nestacme0123456789abcdef012345',
  globex: 'whsec_nestglobex0123456789abcdef0123',
};

@Injectable()
class TenantHandlers {
  static seen: string[] = [];

  @OnSmsWebhook('message.delivered')
  onDelivered(event: WebhookEvent<'message.delivered'>, ctx: HandlerContext): void {
    TenantHandlers.seen.push(`${ctx.tenant} ${event.id}`);
  }
}

describe.each(PLATFORMS)('many tenants on one route, on %s', (platform) => {
  it("forRoot({ secret: fn, path: '/webhooks/sms/:tenant' }): each tenant its secret, ctx.tenant, 404 for an unknown one", async () => {
    TenantHandlers.seen = [];
    const { origin, close } = await startApp(platform, {
      imports: [
        SmsWebhooksModule.forRoot({
          secret: async ({ tenant }) => SECRETS[tenant],
          path: '/webhooks/sms/:tenant',
          respond: 'after-handlers',
          logger: { warn() {}, error() {} },
        }),
      ],
      providers: [TenantHandlers],
    });
    try {
      const d = createTestDelivery('message.delivered', { secret: SECRETS.globex! });
      expect((await post(`${origin}/webhooks/sms/globex`, d)).status).toBe(200);
      expect(TenantHandlers.seen).toEqual([`globex ${d.event.id}`]);
      const crossed = await post(`${origin}/webhooks/sms/acme`, d);
      expect([crossed.status, (crossed.body as { error: { code: string } }).error.code]).toEqual([
        400,
        'signature_mismatch',
      ]);
      const unknown = await post(`${origin}/webhooks/sms/initech`, d);
      expect([unknown.status, (unknown.body as { error: { code: string } }).error.code]).toEqual([
        404,
        'unknown_tenant',
      ]);
    } finally {
      await close();
    }
  });
});
