const MESSAGE_STATUS: Record<string, string> = {
  'message.sent': 'sent',
  'message.delivered': 'delivered',
  'message.failed': 'failed',
  'message.replied': 'replied',
};

/**
 * A sample `data` object for each event type, shaped as spec section 2 describes: for core's
 * createTestDelivery and the emulator's events. `randomId('msg')` makes each id.
 */
export function sampleData(
  type: string,
  now: Date,
  randomId: (prefix: string) => string,
): Record<string, unknown> {
  if (type.startsWith('message.')) {
    return {
      id: randomId('msg'),
      sms_id: randomId('sms'),
      to: '+15555550123',
      status: MESSAGE_STATUS[type]!,
      error:
        type === 'message.failed'
          ? { code: 'unreachable', message: 'The handset could not be reached.' }
          : null,
      kind: 'utility',
      updated_at: now.toISOString(),
      metadata: { order_id: 'ord_1234' },
    };
  }
  if (type === 'sms.completed') {
    return { id: randomId('sms'), recipients: 1, completed_at: now.toISOString() };
  }
  return { message: 'This is a test event.' };
}
