import { createHandler } from './app.js';

// The function's entry: with the bundle below as index.js, the handler setting is index.handler.
const secret = process.env.SMS_WEBHOOK_SECRET?.trim();
if (!secret)
  throw new Error('SMS_WEBHOOK_SECRET is not set: give the function your webhook secret (whsec_…).');

export const handler = createHandler({ secret: secret.includes(',') ? secret.split(',') : secret });
