import { createHash } from 'node:crypto';

/**
 * The four Lua scripts behind RedisStore. Each touches exactly one key (KEYS[1]), so they run on
 * Redis Cluster, and each is one atomic round trip.
 *
 * Values: `p:<token>` while a claim is in flight (the key expires after the lease), `c:<token>` once
 * completed (expires after the retention). The `p:`/`c:` prefixes keep any token from being read as a
 * completed marker.
 */
export interface LuaScript {
  readonly name: 'claim' | 'complete' | 'release' | 'renew';
  readonly source: string;
  readonly sha1: string;
}

function script(name: LuaScript['name'], source: string): LuaScript {
  return { name, source, sha1: createHash('sha1').update(source).digest('hex') };
}

/** ARGV: token, leaseMs. Returns 'claimed', 'in-flight' or 'completed'. */
export const CLAIM = script(
  'claim',
  `if redis.call('SET', KEYS[1], 'p:' .. ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 'claimed'
end
local value = redis.call('GET', KEYS[1])
if value and string.sub(value, 1, 2) == 'c:' then
  return 'completed'
end
return 'in-flight'
`,
);

/** ARGV: token, retainMs. Returns 1 when `token` held a live claim (now completed), else 0. */
export const COMPLETE = script(
  'complete',
  `if redis.call('GET', KEYS[1]) == 'p:' .. ARGV[1] then
  redis.call('SET', KEYS[1], 'c:' .. ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
`,
);

/** ARGV: token. Returns 1 when `token` held a live claim (now deleted), else 0. */
export const RELEASE = script(
  'release',
  `if redis.call('GET', KEYS[1]) == 'p:' .. ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
`,
);

/** ARGV: token, leaseMs. Returns 1 when `token` held a live claim (now expiring leaseMs from now), else 0. */
export const RENEW = script(
  'renew',
  `if redis.call('GET', KEYS[1]) == 'p:' .. ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`,
);
