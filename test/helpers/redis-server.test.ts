import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ping, startRedisServer } from './redis-server.js';

describe('test helper: startRedisServer', () => {
  it('starts, stops, restarts on the same port, and survives a kill', async () => {
    const server = await startRedisServer({ local: true });
    try {
      expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
      expect(await ping(server.host, server.port)).toBe(true);
      await server.restart();
      expect(await ping(server.host, server.port)).toBe(true);
      server.kill();
      await server.restart();
      expect(await ping(server.host, server.port)).toBe(true);
    } finally {
      await server.stop();
    }
    expect(await ping(server.host, server.port)).toBe(false);
  });

  it('fails with an install hint when no binary is found', async () => {
    const saved = { bin: process.env.REDIS_SERVER_BIN };
    process.env.REDIS_SERVER_BIN = '/nonexistent/redis-server';
    try {
      await expect(startRedisServer({ local: true })).rejects.toThrow(/apt-get install redis-server/);
    } finally {
      if (saved.bin === undefined) delete process.env.REDIS_SERVER_BIN;
      else process.env.REDIS_SERVER_BIN = saved.bin;
    }
  });

  it('fails with an install hint naming 7.0+ when PATH has no redis-server', async () => {
    const saved = { bin: process.env.REDIS_SERVER_BIN, path: process.env.PATH };
    // An empty directory as the whole PATH: what a machine without Redis looks like to the helper.
    const empty = mkdtempSync(join(tmpdir(), 'sms-webhooks-no-redis-'));
    delete process.env.REDIS_SERVER_BIN;
    process.env.PATH = empty;
    try {
      await expect(startRedisServer({ local: true })).rejects.toThrow(
        /No redis-server binary found on PATH.*Redis 7\.0 or newer.*apt-get install redis-server/,
      );
    } finally {
      process.env.PATH = saved.path;
      if (saved.bin !== undefined) process.env.REDIS_SERVER_BIN = saved.bin;
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('returns REDIS_URL instead of spawning, and refuses to restart it', async () => {
    const saved = process.env.REDIS_URL;
    process.env.REDIS_URL = 'redis://10.0.0.9:6390';
    try {
      const server = await startRedisServer();
      expect(server).toMatchObject({ host: '10.0.0.9', port: 6390, external: true });
      expect(() => server.kill()).toThrow(/REDIS_URL/);
      await expect(server.restart()).rejects.toThrow(/local: true/);
      await server.stop();
    } finally {
      if (saved === undefined) delete process.env.REDIS_URL;
      else process.env.REDIS_URL = saved;
    }
  });
});
