import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));

// Unset, both sides use the development secret; exported, the instances and the sender must both use it.
it.each([
  ['the development secret', undefined],
  ['SMS_WEBHOOK_SECRET', 'whsec_multi_instance_exported_0123456789'],
])(
  '`start` with %s runs two instances on one Redis and handles every event sent to both exactly once',
  async (_label, secret) => {
    const env = { ...process.env };
    delete env.REDIS_URL;
    delete env.PORT;
    delete env.SMS_WEBHOOK_SECRET;
    if (secret !== undefined) env.SMS_WEBHOOK_SECRET = secret;
    const child = spawn(process.execPath, ['--import', 'tsx', 'start.ts'], { cwd: here, env });
    let output = '';
    const keep = (c: Buffer) => {
      output += c.toString();
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));

    expect(output).toMatch(/\[a\] listening on .* \(ioredis\)/);
    expect(output).toMatch(/\[b\] listening on .* \(node-redis\)/);
    const handled = [...output.matchAll(/\[(a|b)\] handled \S+ (evt_\w+)/g)];
    const ids = handled.map((m) => m[2]);
    expect(ids).toHaveLength(12);
    expect(new Set(ids).size).toBe(12);
    // Every delivery line shows one instance processing it and the other refusing to do it again.
    const lines = output.split('\n').filter((l) => /^\[start\] evt_/.test(l));
    expect(lines).toHaveLength(12);
    for (const line of lines) {
      expect(line.match(/200 \{"received":true\}/g)).toHaveLength(1);
      expect(line).toMatch(/200 \{"received":true,"duplicate":true\}|409 \{"error":\{"code":"in_flight"/);
    }
    expect(output).toMatch(/each event handled exactly once/);
    expect(code).toBe(0);
  },
  60_000,
);
