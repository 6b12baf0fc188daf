import { type RecordingApp, recordingApp } from '@sms-webhooks/test-helpers/recording-app';

export type LocalApp = RecordingApp;

/**
 * The "your app" of the READMEs, at the address they name (http://localhost:3000/webhooks): it answers
 * 200 and keeps every request, so the README's check can verify each one with the secret it printed.
 */
export async function startLocalApp(port = 3000): Promise<LocalApp> {
  try {
    return await recordingApp(port);
  } catch (e) {
    throw new Error(`the README examples need port ${port} free for "your app": ${(e as Error).message}`);
  }
}
