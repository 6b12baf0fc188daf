import { type RecordingApp, recordingApp } from '@sms-webhooks/test-helpers/recording-app';
import { type Harness, startEmulator } from './helpers.js';

/** An emulator on loopback with one webhook for `events`, pointing at a fresh recording app. */
export async function emulatorWithApp(
  events: string[] = ['message.sent'],
): Promise<Harness & { target: RecordingApp }> {
  const target = await recordingApp();
  const harness = await startEmulator({ allowInsecureLoopback: true });
  await harness.call('POST', '/v1/webhooks', {
    token: await harness.token(),
    body: { url: target.url, events },
  });
  return { ...harness, target };
}
