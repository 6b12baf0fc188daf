/**
 * `pnpm bench:otel-flow [--windows=5] [--deliveries=5000]`
 *
 * What ours' default recording costs one delivery, alone: the observer's calls as the receiver makes
 * them for an accepted event with one handler after the answer (start, verified, claim, answered,
 * the handler, complete, finished), through the SDK as an app sets it up (async context manager, batch
 * span processor, an exporter that lets go of each batch, a meter), counted under callgrind on the main
 * thread. No HTTP server and no framework: the figure does not move with their run-to-run variance (the
 * instrumented app's own count moves by up to 6% between server processes), so a change to the
 * recording shows here first. Cases: `under-http` (inside the HTTP instrumentation's server span, as
 * in an instrumented app), `alone` (ours is the server span) and `none` (the context switch alone).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Context, context, createContextKey, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import type { AnyWebhookEvent, AnyWebhookHandler, ReceiverResponse } from '@sms-webhooks/core';
import { arg } from '../../../test/bench/lib/args.js';
import { mainThreadInstructions, requireValgrind } from '../../../test/bench/lib/callgrind.js';
import { median } from '../../../test/bench/lib/stats.js';
import { otelInstrumentation } from '../src/index.js';
import { SentSpans, telemetry } from './telemetry.js';

type Case = 'none' | 'under-http' | 'alone';
const CASES: Case[] = ['none', 'under-http', 'alone'];
const windows = Number(arg('windows', '5'));
const deliveries = Number(arg('deliveries', '5000'));

async function child(which: Case): Promise<void> {
  const sent = new SentSpans();
  const t = telemetry({ batch: true, spanExporter: sent });
  const http = t.tracerProvider.getTracer('@opentelemetry/instrumentation-http');
  const instrumentation = otelInstrumentation({
    tracerProvider: t.tracerProvider,
    meterProvider: t.meterProvider,
  });
  const receiver = { store: 'MemoryStore', respond: 'immediately' as const };
  const headers = { 'user-agent': 'sms-service/1.0' };
  const response = { status: 200, json: { received: true }, headers: {} } as unknown as ReceiverResponse;
  function onDelivered(): void {}
  let n = 0;
  const deliver = () => {
    const obs = instrumentation.startDelivery(headers, receiver)!;
    obs.verified({ id: `evt_${n++}`, type: 'message.delivered' } as AnyWebhookEvent, 1);
    void obs.store('claim', async () => 'claimed');
    obs.answered(response, true);
    obs.runHandler(onDelivered as AnyWebhookHandler, () => onDelivered());
    void obs.store('complete', async () => true);
    obs.finished(undefined);
  };
  // The HTTP instrumentation's server span and its RPC metadata, as it puts them in the request's context.
  const parent = (): Context => {
    const server = http.startSpan('POST', { kind: SpanKind.SERVER });
    return trace
      .setSpan(ROOT_CONTEXT, server)
      .setValue(createContextKey('OpenTelemetry SDK Context Key RPC_METADATA'), {
        type: 'http',
        span: server,
      });
  };
  const serverSpan = parent();
  const one: () => void =
    which === 'none'
      ? () => context.with(serverSpan, () => {})
      : which === 'under-http'
        ? () => context.with(serverSpan, deliver)
        : () => context.with(ROOT_CONTEXT, deliver);
  const batch = async () => {
    for (let i = 0; i < deliveries; i++) {
      one();
      // The batch processor exports on the event loop: let it, as a server's loop would.
      if ((i & 255) === 255) await new Promise(setImmediate);
    }
  };
  for (let i = 0; i < 10; i++) await batch(); // long enough for the JIT to settle
  const run = promisify(execFile);
  for (let w = 0; w < windows; w++) {
    await run('callgrind_control', ['--zero', String(process.pid)]);
    await batch();
    await run('callgrind_control', ['--dump', String(process.pid)]);
  }
  await t.shutdown();
  if (which !== 'none' && sent.count < deliveries * windows) throw new Error(`only ${sent.count} spans sent`);
}

const childCase = process.argv.find((a) => a.startsWith('--child='))?.slice('--child='.length) as Case;
if (childCase !== undefined) {
  await child(childCase);
} else {
  requireValgrind();
  const counts = new Map<Case, number>();
  for (const which of CASES) {
    const dir = mkdtempSync(join(tmpdir(), 'sms-webhooks-flow-'));
    try {
      execFileSync(
        'valgrind',
        [
          '--tool=callgrind',
          '-q',
          '--separate-threads=yes',
          `--callgrind-out-file=${join(dir, 'cg')}`,
          process.execPath,
          '--import',
          'tsx',
          fileURLToPath(import.meta.url),
          `--child=${which}`,
          `--windows=${windows}`,
          `--deliveries=${deliveries}`,
        ],
        { stdio: ['ignore', 'ignore', 'inherit'] },
      );
      const perDelivery = [];
      for (let w = 1; w <= windows; w++) perDelivery.push(mainThreadInstructions(dir, w) / deliveries);
      counts.set(which, median(perDelivery));
      console.log(
        `${which}: ${perDelivery.map((x) => `${(x / 1000).toFixed(1)}k`).join(' ')} (median ${(median(perDelivery) / 1000).toFixed(1)}k)`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const none = counts.get('none')!;
  console.log(
    `\nours' default recording, per delivery (main-thread instructions, beyond the context switch alone): under the HTTP span ${((counts.get('under-http')! - none) / 1000).toFixed(1)}k, alone ${((counts.get('alone')! - none) / 1000).toFixed(1)}k`,
  );
}
