import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../packages/cli/test/helpers.js';

const here = fileURLToPath(new URL('.', import.meta.url));

it('`failed-job` leaves one failed job that `sms-webhooks failed` lists and replays', async () => {
  const env = { ...process.env };
  delete env.REDIS_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', 'failed-job.ts'], { cwd: here, env });
  let output = '';
  const seen = (pattern: RegExp) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const match = output.match(pattern);
        if (match) resolve(match);
      };
      child.stdout.on('data', check);
      child.once('exit', (code) => reject(new Error(`exited ${code} before ${pattern}:\n${output}`)));
      check();
    });
  child.stdout.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    output += c.toString();
  });
  try {
    const [, id, url] = await seen(/pnpm sms-webhooks failed replay (evt_\w+) --redis-url (\S+)\n/);
    expect(output).toMatch(
      new RegExp(`${id} failed for good after 2 attempts: .*downstream is down \\(run 2\\)`),
    );
    const list = await runCli(['failed', 'list', '--redis-url', url!]);
    expect(list.stdout).toMatch(new RegExp(`^1 failed event\\(s\\):\\n${id}  message.delivered  2 attempt`));
    const replay = await runCli(['failed', 'replay', id!, '--redis-url', url!]);
    expect(replay).toMatchObject({ code: 0, stderr: '' });
    await seen(new RegExp(`handled ${id} on run 3: the replay worked`));
    expect((await runCli(['failed', 'list', '--redis-url', url!])).stdout).toBe('No failed events.\n');
  } finally {
    child.kill('SIGTERM');
  }
}, 60_000);
