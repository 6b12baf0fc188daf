import { withTimeout } from '@sms-webhooks/internal';
import { RedisStoreError } from './errors.js';
import { storedKey } from './event-key.js';
import type { LuaScript } from './scripts.js';
import type { KeyedSendCommand } from './send-command.js';

/** What every operation of the store works with: its prefix, how it sends a command, and its time limit. */
export interface StoreContext {
  readonly prefix: string;
  readonly commandTimeoutMs: number;
  readonly send: KeyedSendCommand;
  /** Whether `claimWithOrder` is one script (false on a cluster, or once Redis answered CROSSSLOT). */
  oneStep: boolean;
}

/** A reply as a string where the client gave bytes. */
export function text(reply: unknown): unknown {
  return reply instanceof Uint8Array ? Buffer.from(reply).toString('utf8') : reply;
}

/** The error for a reply no script of ours gives. */
export function badReply(script: LuaScript, reply: unknown): RedisStoreError {
  return new RedisStoreError(
    'ERR_SMS_REDIS_REPLY',
    `unexpected reply to the ${script.name} script: ${JSON.stringify(text(reply))?.slice(0, 100)}.`,
  );
}

/** `reply` when it is one of `results`, the answers `script` gives; else a badReply error. */
export function oneOf<T extends string>(script: LuaScript, reply: unknown, results: ReadonlySet<string>): T {
  if (typeof reply !== 'string' || !results.has(reply)) throw badReply(script, reply);
  return reply as T;
}

function isNoScript(error: unknown): boolean {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && /^(ERR )?NOSCRIPT\b/.test(message);
}

/** The script on the event id `id`'s key. */
export function run(ctx: StoreContext, script: LuaScript, id: string, args: string[]): Promise<unknown> {
  return runOn(ctx, script, [storedKey(ctx.prefix, id)], args);
}

/** The script on `keys`, routed by the first. */
export async function runOn(
  ctx: StoreContext,
  script: LuaScript,
  keys: string[],
  args: string[],
): Promise<unknown> {
  const key = keys[0]!;
  const n = String(keys.length);
  try {
    return await ctx.send(key, ['EVALSHA', script.sha1, n, ...keys, ...args]);
  } catch (error) {
    // After a restart, failover or SCRIPT FLUSH the server has forgotten the script; EVAL caches it again.
    if (!isNoScript(error)) throw error;
    return ctx.send(key, ['EVAL', script.source, n, ...keys, ...args]);
  }
}

/** `work` within `commandTimeoutMs`; `what`: the script, or a plain command's name (`keepDelivery`). */
export function bounded(
  ctx: StoreContext,
  work: Promise<unknown>,
  what: LuaScript | string,
  id: string,
): Promise<unknown> {
  const name = typeof what === 'string' ? what : what.name;
  const ms = ctx.commandTimeoutMs;
  // The command may still run later in Redis; its late reply is dropped (a late claim simply holds the
  // key until its lease ends).
  return withTimeout(
    work,
    ms,
    () =>
      new RedisStoreError(
        'ERR_SMS_REDIS_TIMEOUT',
        `${name} of ${id.slice(0, 80)} got no answer from Redis within ${ms} ms (commandTimeoutMs).`,
      ),
  );
}

/** A script that answers 1 when it did what it was asked and 0 when it did not, within the time limit. */
export async function flag(
  ctx: StoreContext,
  work: Promise<unknown>,
  script: LuaScript,
  key: string,
): Promise<boolean> {
  const reply = await bounded(ctx, work, script, key);
  const value = Number(text(reply));
  if (value !== 0 && value !== 1) throw badReply(script, reply);
  return value === 1;
}
