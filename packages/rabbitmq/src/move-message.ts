import type { ConfirmChannel, ConsumeMessage, MessagePropertyHeaders } from 'amqplib';
import { publishConfirmed } from './publish.js';

function headersFor(msg: ConsumeMessage, extra: MessagePropertyHeaders): MessagePropertyHeaders {
  const {
    'x-death': _death,
    'x-first-death-exchange': _e,
    'x-first-death-queue': _q,
    'x-first-death-reason': _r,
    ...own
  } = msg.properties.headers ?? {};
  return { ...own, ...extra };
}

/** A copy of the message to `routingKey` through `exchange`, confirmed; then the original is acked. */
export async function moveMessage(
  channel: ConfirmChannel,
  msg: ConsumeMessage,
  exchange: string,
  routingKey: string,
  headers: MessagePropertyHeaders,
): Promise<void> {
  const p = msg.properties;
  await publishConfirmed(channel, exchange, routingKey, msg.content, {
    messageId: String(p.messageId),
    type: p.type,
    contentType: p.contentType,
    timestamp: p.timestamp,
    headers: headersFor(msg, headers),
  });
  channel.ack(msg);
}
