import type { AttemptReport } from '@sms-webhooks/emulator';

/**
 * The error code in the app's JSON answer: `{"error":{"code":"signature_mismatch",…}}` as the receiver
 * refuses, or `{"error":"…"}` / `{"code":"…"}` as other apps do. Undefined when the body says none.
 */
export function appErrorCode(responseBody: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(responseBody);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object') return undefined;
  const { error, code } = parsed as { error?: unknown; code?: unknown };
  const candidate =
    error !== null && typeof error === 'object' ? (error as { code?: unknown }).code : (error ?? code);
  return typeof candidate === 'string' && /^[\w.-]{1,64}$/.test(candidate) ? candidate : undefined;
}

/**
 * What a refusal most likely means for someone running `listen`, or undefined when there is nothing to add.
 * `on`: where it is read; the terminal shows the secret a few lines up, the inspector page does not.
 */
export function attemptHint(report: AttemptReport, on: 'terminal' | 'page' = 'terminal'): string | undefined {
  const url = new URL(report.url);
  const where = `${url.pathname} on ${url.host}`;
  if (report.statusCode === 404) {
    return `nothing is mounted at ${where}: is --forward-to the path your app mounts its webhook route at (the READMEs use /webhooks/sms)?`;
  }
  if (report.statusCode === 405) {
    return `${where} does not take POST: mount the webhook handler for every method there (app.all), or fix --forward-to.`;
  }
  switch (appErrorCode(report.responseBody)) {
    case 'signature_mismatch':
      return on === 'terminal'
        ? 'is the app using the secret above (SMS_WEBHOOK_SECRET)?'
        : 'is the app using the secret `sms-webhooks listen` printed when it started (its SMS_WEBHOOK_SECRET)?';
    case 'signature_missing':
      return 'the app saw no X-Service-Signature header: does a proxy in front of it drop it?';
    case 'timestamp_out_of_tolerance':
      return "the app's clock and this machine's disagree by more than its tolerance.";
    default:
      return undefined;
  }
}
