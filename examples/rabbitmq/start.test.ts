import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));

it('`start --smoke` runs the receiver and the worker as separate processes on RabbitMQ and handles one event once', async () => {
  const env = { ...process.env };
  delete env.REDIS_URL;
  delete env.PORT;
  const child = spawn(process.execPath, ['--import', 'tsx', 'start.ts', '--smoke'], { cwd: here, env });
  let output = '';
  child.stdout.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    output += c.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(output).toMatch(/\[start\] delivery of (evt_\w+): 200 \{"received":true\}/);
  expect(output).toMatch(/\[start\] redelivery of evt_\w+: (200 \{"received":true,"duplicate":true\}|409)/);
  expect(output.match(/\[worker\] handled message\.delivered/g)).toHaveLength(1);
  expect(code).toBe(0);
}, 60_000);
