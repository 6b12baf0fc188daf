import { format } from 'node:util';
import { Logger } from '@nestjs/common';
import type { Logger as ReceiverLogger } from '@sms-webhooks/core';

/** The receiver's warnings and errors through Nest's `Logger`, so the app's logger settings apply. */
export function nestLogger(context = 'SmsWebhooks'): ReceiverLogger {
  const logger = new Logger(context);
  return {
    warn: (...args) => logger.warn(format(...args)),
    error: (...args) => logger.error(format(...args)),
  };
}
