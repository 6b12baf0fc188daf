import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError } from './cli-error.js';
import type { CliIo } from './io.js';
import type { CliState, SentEvent } from './state-format.js';

const MAX_SENT_EVENTS = 100;

/** `--state-file`, else $SMS_WEBHOOKS_STATE_FILE, else $XDG_STATE_HOME/sms-webhooks/state.json (~/.local/state). */
export function statePath(io: CliIo, flag: string | undefined): string {
  if (flag) return flag;
  if (io.env.SMS_WEBHOOKS_STATE_FILE) return io.env.SMS_WEBHOOKS_STATE_FILE;
  const base = io.env.XDG_STATE_HOME || join(io.env.HOME || homedir(), '.local', 'state');
  return join(base, 'sms-webhooks', 'state.json');
}

export async function readState(path: string): Promise<CliState> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CliError(`cannot read the state file ${path}: ${(error as Error).message}`, {
      code: 'state_unreadable',
    });
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as CliState)
      : {};
  } catch {
    throw new CliError(`the state file ${path} is not JSON: fix or delete it.`, { code: 'state_unreadable' });
  }
}

/** Written to a temporary file and renamed, so a reader never sees half a file. */
export async function writeState(path: string, state: CliState): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    await rename(temporary, path);
  } catch (error) {
    throw new CliError(`cannot write the state file ${path}: ${(error as Error).message}`, {
      code: 'state_unwritable',
    });
  }
}

export function rememberSent(state: CliState, id: string, event: SentEvent): CliState {
  const sent = { ...state.sent_events };
  delete sent[id];
  sent[id] = event;
  const ids = Object.keys(sent);
  for (const old of ids.slice(0, Math.max(0, ids.length - MAX_SENT_EVENTS))) delete sent[old];
  return { ...state, sent_events: sent };
}

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}
