import { ReplayError } from '@sms-webhooks/bullmq';
import { SmsWebhooksError } from '@sms-webhooks/core';
import { OpsError } from '@sms-webhooks/ops';
import { PgBossHandOffError } from '@sms-webhooks/pg-boss';
import { PostgresStoreError } from '@sms-webhooks/postgres';
import { RabbitHandOffError } from '@sms-webhooks/rabbitmq';
import { RedisStoreError } from '@sms-webhooks/redis';
import { describe, expect, it } from 'vitest';

// Each package's coded error is core's SmsWebhooksError with its own name and message prefix.
const classes = [
  [ReplayError, 'ReplayError', '@sms-webhooks/bullmq', 'ERR_SMS_BULLMQ_NO_JOB'],
  [OpsError, 'OpsError', '@sms-webhooks/ops', 'ERR_SMS_OPS_OPTIONS'],
  [PgBossHandOffError, 'PgBossHandOffError', '@sms-webhooks/pg-boss', 'ERR_SMS_PGBOSS_NO_QUEUE'],
  [PostgresStoreError, 'PostgresStoreError', '@sms-webhooks/postgres', 'ERR_SMS_POSTGRES_TIMEOUT'],
  [RabbitHandOffError, 'RabbitHandOffError', '@sms-webhooks/rabbitmq', 'ERR_SMS_RABBITMQ_NACKED'],
  [RedisStoreError, 'RedisStoreError', '@sms-webhooks/redis', 'ERR_SMS_REDIS_REPLY'],
] as const;

describe("the packages' coded errors", () => {
  it.each(classes)(
    '%o is a SmsWebhooksError named %s whose messages begin with %s',
    (Class, name, pkg, code) => {
      const cause = new Error('underneath');
      const error = new Class(code as never, 'what went wrong.', { cause });
      expect(error).toBeInstanceOf(SmsWebhooksError);
      expect(error.name).toBe(name);
      expect(error.code).toBe(code);
      expect(error.message).toBe(`${pkg}: what went wrong.`);
      expect(error.cause).toBe(cause);
    },
  );
});
