import { isServiceApiError } from '@sms-webhooks/client';
import { CommanderError } from 'commander';
import { CliError } from './cli-error.js';
import { redactUrls } from './redact.js';

/** What `--json` prints on stderr: `{"error":{"code","message","status"?,"details"?}}`. */
export interface JsonError {
  code: string;
  message: string;
  status?: number;
  details?: { field: string; message: string }[];
}

export interface ErrorReport {
  exitCode: number;
  json: JsonError;
  /** The text-mode line(s), or undefined when commander already printed its own message. */
  text: string | undefined;
}

/**
 * One place that turns every failure into an exit code plus both renderings, so text and `--json`
 * output cannot drift apart. Undefined for commander's help and version exits, which are not errors.
 */
export function describeError(error: unknown): ErrorReport | undefined {
  const report = describe(error);
  if (report === undefined) return undefined;
  // A usage error echoes the argument (`--database-url` with its password); a driver's message may too.
  const json = { ...report.json, message: redactUrls(report.json.message) };
  return { ...report, json, text: report.text === undefined ? undefined : redactUrls(report.text) };
}

function describe(error: unknown): ErrorReport | undefined {
  if (error instanceof CommanderError) {
    if (error.exitCode === 0) return undefined;
    // `commander.help` with a non-zero code: a command group (`webhooks`) was called without a subcommand.
    const message =
      error.code === 'commander.help'
        ? 'a subcommand is required; add --help for usage.'
        : error.message.replace(/^error: /, '');
    return { exitCode: 2, json: { code: 'usage_error', message }, text: undefined };
  }
  if (isServiceApiError(error)) {
    const details = error.details?.map((d) => `\n  ${d.field}: ${d.message}`).join('') ?? '';
    const prefix = error.status === 0 ? error.code : `${error.status} ${error.code}`;
    // The message of a validation error already lists its details (`Invalid input: field: message`): say
    // them once, one a line.
    const message = details === '' ? error.message : error.message.replace(/:.*$/s, ':');
    return {
      exitCode: 1,
      json: {
        code: error.code,
        message: error.message,
        // 0 means no answer came (network_error, timeout): there is no HTTP status to report.
        ...(error.status === 0 ? {} : { status: error.status }),
        ...(error.details ? { details: error.details } : {}),
      },
      text: `${prefix}: ${message}${details}`,
    };
  }
  if (error instanceof CliError) {
    const json: JsonError = { code: error.code, message: error.message };
    if (error.status !== undefined) json.status = error.status;
    return { exitCode: error.exitCode, json, text: error.message };
  }
  const message = (error as Error)?.message ?? String(error);
  // The packages' own errors (OpsError, option mistakes) carry a stable ERR_SMS_… code: keep it.
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('ERR_SMS_')) {
    return { exitCode: 1, json: { code, message }, text: message };
  }
  return { exitCode: 1, json: { code: 'internal_error', message }, text: message };
}

/** `--json` anywhere before a `--` terminator. */
export function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}
