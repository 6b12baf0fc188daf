import { randomBytes } from 'node:crypto';
import { type Client, createClient, type WebhookOut } from '@sms-webhooks/client';
import { EVENT_TYPES, type EventType } from '@sms-webhooks/core';
import { type AttemptReport, createEmulator, isLoopbackHost } from '@sms-webhooks/emulator';
import type { Command } from 'commander';
import { processSignal, untilAborted } from '../abort-signal.js';
import { attemptJson, attemptLine, hintPrinter } from '../attempt-line.js';
import { CliError } from '../cli-error.js';
import { apiBaseOf, unreachable } from '../emulator-api.js';
import { type Inspector, startInspector } from '../inspector/inspector-server.js';
import { InspectorState } from '../inspector/inspector-state.js';
import { cliCommand } from '../invocation.js';
import type { CliIo } from '../io.js';
import { HistoryWriter, type TakenUp, takeUp } from '../listen-history.js';
import { absoluteUrl, eventTypeList, integer, webhookSecret } from '../options.js';
import { newWebhookSecret, readState, statePath, writeState } from '../state-file.js';
import { timeScaleOption } from './time-scale-option.js';
import { scenario } from './trigger.js';

interface ListenOptions {
  forwardTo: URL;
  events?: EventType[];
  apiBase?: string;
  secret?: string;
  port?: number;
  host: string;
  timeScale: number;
  stateFile?: string;
  json?: boolean;
  ui?: boolean;
  uiPort: number;
}

/**
 * Where `trigger` and `resend` look for the emulator ($SMS_API_BASE_URL) is where `listen` starts it, when
 * that is an http URL on this machine with a port: one variable tells them all.
 */
function portOfApiBase(io: CliIo): number | undefined {
  try {
    const url = new URL(io.env.SMS_API_BASE_URL ?? '');
    const local = isLoopbackHost(url.hostname) || url.hostname === 'localhost';
    return url.protocol === 'http:' && local && url.port !== '' ? Number(url.port) : undefined;
  } catch {
    return undefined;
  }
}

/** The API key `listen --api-base` registers with; any sk_test_ key works on an emulator. */
const apiKeyOf = (io: CliIo) => io.env.SMS_API_KEY || 'sk_test_local';

/**
 * The key of the emulator `listen` starts: new each run and known to this process only. Only webhooks
 * created with it get the stable secret; any other local process that asks for a webhook gets its own
 * random secret, so it cannot sign deliveries the app accepts. `trigger` and `resend` need no key.
 */
const privateApiKey = () => `sk_test_listen_${randomBytes(18).toString('hex')}`;

/** --secret, else the one in the state file, else a new one written there. */
async function stableSecret(io: CliIo, options: ListenOptions): Promise<{ secret: string; keptIn?: string }> {
  if (options.secret) return { secret: options.secret };
  const path = statePath(io, options.stateFile);
  const state = await readState(path);
  if (typeof state.webhook_secret === 'string' && /^whsec_\S+$/.test(state.webhook_secret)) {
    return { secret: state.webhook_secret, keptIn: path };
  }
  const secret = newWebhookSecret();
  await writeState(path, { ...state, webhook_secret: secret });
  return { secret, keptIn: path };
}

function ready(
  io: CliIo,
  options: ListenOptions,
  apiBase: string,
  webhook: WebhookOut,
  origin: string,
): void {
  if (options.json) {
    io.stdout(
      `${JSON.stringify({ ready: true, api_base: apiBase, webhook_id: webhook.id, forward_to: webhook.url, events: webhook.events, secret: webhook.secret })}\n`,
    );
    return;
  }
  io.stdout(
    [
      `Ready. ${webhook.events.join(', ')} → ${webhook.url}`,
      `  emulator ${apiBase} (${origin}), webhook ${webhook.id}`,
      'Give your app this secret:',
      `export SMS_WEBHOOK_SECRET=${webhook.secret}`,
      `Then from another shell: ${cliCommand(io)} trigger message.delivered (SMS_API_BASE_URL=${apiBase}). Ctrl-C stops.`,
      '',
    ].join('\n'),
  );
}

/** `--ui`: the inspector page, on loopback, acting on the emulator at `apiBase`. */
async function openInspector(
  io: CliIo,
  options: ListenOptions,
  state: InspectorState,
  apiBase: string,
  events: readonly string[],
): Promise<Inspector> {
  let inspector: Inspector;
  try {
    inspector = await startInspector({
      state,
      apiBase,
      events,
      scenario: (type) => scenario(type as EventType),
      port: options.uiPort,
    });
  } catch (error) {
    throw new CliError(
      `cannot start the inspector on 127.0.0.1:${options.uiPort}: ${(error as Error).message}. Pick another --ui-port (0 for any free one).`,
      { code: 'listen_failed' },
    );
  }
  io.stdout(
    options.json
      ? `${JSON.stringify({ inspector: inspector.url })}\n`
      : `Inspector: ${inspector.url} (every delivery, live; resend and trigger buttons)\n`,
  );
  return inspector;
}

const clockTime = (ms: number) => new Date(ms).toTimeString().slice(0, 8);

/** What the last run left: said once, so a restart never drops a retry without a word. */
function printTakenUp(io: CliIo, options: ListenOptions, t: TakenUp): void {
  if (options.json) {
    if (t.events === 0 && t.dropped.length === 0) return;
    io.stdout(
      `${JSON.stringify({ taken_up: t.events, retries_scheduled: t.retries, next_attempt_at: t.nextAt === null ? null : new Date(t.nextAt).toISOString(), dropped: t.dropped })}\n`,
    );
    return;
  }
  if (t.events > 0) {
    const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
    const retries =
      t.nextAt === null
        ? 'no retry was scheduled'
        : `${plural(t.retries, 'retry', 'retries')} scheduled, next at ${clockTime(t.nextAt)}`;
    io.stdout(
      `Took up ${plural(t.events, 'event', 'events')} from the last run (${retries}); resend knows them.\n`,
    );
  }
  for (const d of t.dropped) {
    io.stdout(
      `Dropped the scheduled retry of ${d.type} ${d.id}: this run does not subscribe to ${d.type}.\n`,
    );
  }
}

function printer(
  io: CliIo,
  options: ListenOptions,
  webhookId: () => string | undefined,
  inspected?: InspectorState,
) {
  const hint = hintPrinter();
  return (report: AttemptReport) => {
    if (report.webhookId !== webhookId()) return;
    inspected?.record(report);
    if (options.json) return io.stdout(`${attemptJson(report)}\n`);
    const extra = hint(report);
    io.stdout(`${attemptLine(report)}\n${extra === undefined ? '' : `${extra}\n`}`);
  };
}

/**
 * Starts an emulator in this process, with a secret that stays the same across restarts. The events it
 * sent and their scheduled retries are kept in the state file, and the next run takes them up.
 */
async function startAndListen(io: CliIo, options: ListenOptions, signal: AbortSignal): Promise<void> {
  const { secret, keptIn } = await stableSecret(io, options);
  const path = statePath(io, options.stateFile);
  let webhookId: string | undefined;
  let writer: HistoryWriter | undefined;
  const apiKey = privateApiKey();
  const inspected = options.ui ? new InspectorState(options.timeScale) : undefined;
  let inspector: Inspector | undefined;
  const print = printer(io, options, () => webhookId, inspected);
  const emulator = createEmulator({
    port: options.port,
    host: options.host,
    timeScale: options.timeScale,
    allowInsecureLoopback: true,
    webhookSecret: secret,
    webhookSecretApiKeys: [apiKey],
    onAttempt: (report) => {
      print(report);
      if (report.webhookId === webhookId) void writer?.save();
    },
  });
  let apiBase: string;
  try {
    apiBase = await emulator.listen();
  } catch (error) {
    const inUse = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
    throw new CliError(
      `cannot listen on ${options.host}:${options.port}: ${(error as Error).message}${inUse ? `. Is an emulator running there? Attach to it with --api-base http://${options.host}:${options.port}, or pick another --port.` : ''}`,
      { code: 'listen_failed' },
    );
  }
  try {
    const client = createClient({ apiKey, baseUrl: apiBase, allowInsecureLoopback: true });
    const webhook = await client.createWebhook({
      url: options.forwardTo.href,
      events: options.events ?? [...EVENT_TYPES],
      description: 'sms-webhooks listen',
    });
    webhookId = webhook.id;
    const origin = keptIn
      ? `started here; the secret is kept in ${keptIn}`
      : 'started here; the secret from --secret';
    ready(io, options, apiBase, webhook, origin);
    if (inspected) inspector = await openInspector(io, options, inspected, apiBase, webhook.events);
    let warned = false;
    // A state file that cannot be read or written costs the restart its retries, not the run.
    const warnOnce = (error: unknown) => {
      if (warned) return;
      warned = true;
      io.stderr(`warning: ${(error as Error).message}; a restart will not take up the retries.\n`);
    };
    const last = await readState(path).catch((error: unknown) => {
      warnOnce(error);
      return {};
    });
    printTakenUp(io, options, takeUp(last, emulator, webhook.id, webhook.events));
    // Warned once: every attempt writes the file, and one line says all there is to say.
    writer = new HistoryWriter(path, () => emulator.history(webhook.id), warnOnce);
    await writer.save();
    await untilAborted(signal);
    // Before the emulator closes: its scheduled retries are part of what is written.
    await writer.save();
  } finally {
    await inspector?.close();
    await emulator.close();
  }
}

/** The emulator's NDJSON attempt stream, one parsed object per line. */
async function* attemptStream(apiBase: string, signal: AbortSignal): AsyncGenerator<Record<string, unknown>> {
  let res: Response;
  try {
    res = await fetch(`${apiBase}/_emulator/attempts`, {
      signal,
      headers: { accept: 'application/x-ndjson' },
    });
  } catch (error) {
    if (signal.aborted) return;
    throw unreachable(apiBase, error);
  }
  if (!res.ok || !res.body) {
    throw new CliError(
      `${apiBase} is not an sms-webhooks emulator (GET /_emulator/attempts answered ${res.status}).`,
      {
        code: 'not_an_emulator',
      },
    );
  }
  const decoder = new TextDecoder();
  let buffered = '';
  const reader = res.body.getReader();
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      buffered += decoder.decode(chunk.value, { stream: true });
      let newline = buffered.indexOf('\n');
      while (newline !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (line.trim() !== '') yield JSON.parse(line) as Record<string, unknown>;
        newline = buffered.indexOf('\n');
      }
    }
  } catch (error) {
    if (signal.aborted) return;
    throw error;
  }
}

/** Registers with an emulator that runs elsewhere and streams its attempts; the webhook goes on Ctrl-C. */
async function attachAndListen(io: CliIo, options: ListenOptions, signal: AbortSignal): Promise<void> {
  const apiBase = apiBaseOf(io, options.apiBase);
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  const stream = attemptStream(apiBase, stop.signal);
  // The first line says the stream is attached, so no attempt is missed between registering and reading.
  const first = await stream.next();
  if (first.done) {
    if (signal.aborted) return;
    throw new CliError(`the emulator at ${apiBase} closed the attempt stream.`, { code: 'emulator_stopped' });
  }
  let client: Client | undefined;
  let webhook: WebhookOut | undefined;
  let inspector: Inspector | undefined;
  try {
    client = createClient({ apiKey: apiKeyOf(io), baseUrl: apiBase, allowInsecureLoopback: true });
    webhook = await client.createWebhook({
      url: options.forwardTo.href,
      events: options.events ?? [...EVENT_TYPES],
      description: 'sms-webhooks listen',
    });
    if (options.secret && options.secret !== webhook.secret) {
      io.stderr(
        `warning: the emulator at ${apiBase} issues its own secrets, so --secret is not used. Start it with \`sms-webhooks emulator --webhook-secret …\` to fix one.\n`,
      );
    }
    ready(
      io,
      options,
      apiBase,
      webhook,
      'attached; it decides the secret, fixed with `emulator --webhook-secret`',
    );
    const inspected = options.ui ? new InspectorState(options.timeScale) : undefined;
    if (inspected) inspector = await openInspector(io, options, inspected, apiBase, webhook.events);
    const print = printer(io, options, () => webhook?.id, inspected);
    for await (const line of stream) print(line as unknown as AttemptReport);
    if (!signal.aborted) {
      throw new CliError(`the emulator at ${apiBase} stopped.`, { code: 'emulator_stopped' });
    }
  } finally {
    await inspector?.close();
    stop.abort();
    signal.removeEventListener('abort', onAbort);
    if (client && webhook) await client.deleteWebhook(webhook.id).catch(() => undefined);
  }
}

export function registerListen(program: Command, io: CliIo): void {
  program
    .command('listen')
    .description(
      'Start the emulator (or attach to one), register your app, and stream every delivery and retry (like `stripe listen`).',
    )
    .requiredOption(
      '--forward-to <url>',
      'your webhook route, e.g. http://localhost:3000/webhooks/sms',
      absoluteUrl('--forward-to'),
    )
    .option('--events <types>', 'comma-separated event types (default all)', eventTypeList)
    .option('--api-base <url>', 'attach to the emulator running there instead of starting one')
    .option('--secret <whsec>', 'the webhook secret (default one kept in the state file)', webhookSecret)
    .option(
      '--port <port>',
      'port of the emulator started here (default the port of $SMS_API_BASE_URL when it is on this machine, else 4010)',
      integer('--port', 0, 65_535),
    )
    .option('--host <host>', 'interface of the emulator started here', '127.0.0.1')
    .addOption(timeScaleOption())
    .option(
      '--state-file <path>',
      'where the secret is kept (default ~/.local/state/sms-webhooks/state.json)',
    )
    .option('--json', 'print the ready line and each delivery attempt as JSON lines')
    .option('--ui', 'also serve the inspector: a page showing every delivery live, with resend and trigger')
    .option(
      '--ui-port <port>',
      'port of the inspector page on 127.0.0.1',
      integer('--ui-port', 0, 65_535),
      4011,
    )
    .addHelpText(
      'after',
      '\nExample:\n  sms-webhooks listen --forward-to http://localhost:3000/webhooks/sms --time-scale 1/60\n  # then start your app with the printed SMS_WEBHOOK_SECRET, and in another shell:\n  sms-webhooks trigger message.delivered',
    )
    .action(async (options: ListenOptions) => {
      options.port ??= portOfApiBase(io) ?? 4010;
      const signal = io.signal ?? processSignal();
      if (options.apiBase !== undefined) await attachAndListen(io, options, signal);
      else await startAndListen(io, options, signal);
    });
}
