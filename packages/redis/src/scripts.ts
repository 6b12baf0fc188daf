import { createHash } from 'node:crypto';

/**
 * The Lua scripts behind RedisStore. Each touches exactly one key (KEYS[1]), so they run on Redis
 * Cluster, and each is one atomic round trip; all but `claimWithOrder` and `completeWithOrder`, which
 * take an event and its object at once (two keys, two hash slots: not on a cluster, where the store
 * makes the two calls).
 *
 * Values: `p:<token>` while a claim is in flight (the key expires after the lease), `c:<token>` once
 * completed (expires after the retention). The `p:`/`c:` prefixes keep any token from being read as a
 * completed marker.
 */
export interface LuaScript {
  readonly name:
    | 'claim'
    | 'complete'
    | 'release'
    | 'renew'
    | 'claimOrder'
    | 'claimWithOrder'
    | 'completeWithOrder'
    | 'completeOrder'
    | 'releaseOrder'
    | 'renewOrder'
    | 'inspect';
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

/*
 * The order scripts (the receiver's `order` option) keep one hash per object: `v` its newest completed
 * version, `t` the token holding its lease and `l` when that lease ends (ms, Redis's own clock). Versions
 * compare bytewise (`before`), never with Lua's `<` on strings, which follows the server's locale.
 */
const ORDER_PRELUDE = `local function before(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local function keep(key, ms)
  local ttl = redis.call('PTTL', key)
  if ttl < ms then redis.call('PEXPIRE', key, ms) end
end
-- Why object key cannot be taken for version by token: 'stale', 'busy', or nil (it can).
local function blocked(key, version, token)
  local v = redis.call('HGET', key, 'v')
  if v and not before(v, version) then return 'stale' end
  local holder = redis.call('HGET', key, 't')
  if holder and holder ~= token then
    local ends = tonumber(redis.call('HGET', key, 'l'))
    if ends and ends > now then return 'busy' end
  end
  return nil
end
local function take(key, token, ms)
  redis.call('HSET', key, 't', token, 'l', now + ms)
  keep(key, ms)
end
-- Records version unless a newer one is kept, frees the token's lease; true when it held it.
local function advance(key, version, token, ms)
  local v = redis.call('HGET', key, 'v')
  if not v or before(v, version) then redis.call('HSET', key, 'v', version) end
  local held = redis.call('HGET', key, 't') == token
  if held then redis.call('HDEL', key, 't', 'l') end
  keep(key, ms)
  return held
end
`;

/** ARGV: version, token, leaseMs. Returns 'claimed', 'stale' or 'in-flight'. */
export const CLAIM_ORDER = script(
  'claimOrder',
  `${ORDER_PRELUDE}local why = blocked(KEYS[1], ARGV[1], ARGV[2])
if why == 'stale' then return 'stale' end
if why == 'busy' then return 'in-flight' end
take(KEYS[1], ARGV[2], tonumber(ARGV[3]))
return 'claimed'
`,
);

/**
 * KEYS: the event, its object. ARGV: token, leaseMs, version, retainMs. CLAIM and then CLAIM_ORDER in one
 * step: 'completed' or 'in-flight' for a taken event (its object untouched); 'stale' (the event is
 * recorded completed for retainMs) or 'object-in-flight' (nothing held); else 'claimed', both held.
 */
export const CLAIM_WITH_ORDER = script(
  'claimWithOrder',
  `${ORDER_PRELUDE}local value = redis.call('GET', KEYS[1])
if value then
  if string.sub(value, 1, 2) == 'c:' then return 'completed' end
  return 'in-flight'
end
local why = blocked(KEYS[2], ARGV[3], ARGV[1])
if why == 'stale' then
  redis.call('SET', KEYS[1], 'c:' .. ARGV[1], 'PX', ARGV[4])
  return 'stale'
end
if why == 'busy' then return 'object-in-flight' end
redis.call('SET', KEYS[1], 'p:' .. ARGV[1], 'PX', ARGV[2])
take(KEYS[2], ARGV[1], tonumber(ARGV[2]))
return 'claimed'
`,
);

/** ARGV: version, token, retainMs. Returns 1 when `token` held the object (now freed), else 0. */
export const COMPLETE_ORDER = script(
  'completeOrder',
  `${ORDER_PRELUDE}if advance(KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3])) then return 1 end
return 0
`,
);

/**
 * KEYS: the event, its object. ARGV: token, retainMs, version. COMPLETE_ORDER and then COMPLETE in one
 * step; returns what COMPLETE would (1 when `token` held the event's live claim, now completed).
 */
export const COMPLETE_WITH_ORDER = script(
  'completeWithOrder',
  `${ORDER_PRELUDE}advance(KEYS[2], ARGV[3], ARGV[1], tonumber(ARGV[2]))
if redis.call('GET', KEYS[1]) == 'p:' .. ARGV[1] then
  redis.call('SET', KEYS[1], 'c:' .. ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
`,
);

/** ARGV: token. Returns 1 when `token` held the object (now freed; its version stays), else 0. */
export const RELEASE_ORDER = script(
  'releaseOrder',
  `if redis.call('HGET', KEYS[1], 't') == ARGV[1] then
  redis.call('HDEL', KEYS[1], 't', 'l')
  return 1
end
return 0
`,
);

/** ARGV: token, leaseMs. Returns 1 when `token` held a live lease (now ending leaseMs from now), else 0. */
export const RENEW_ORDER = script(
  'renewOrder',
  `${ORDER_PRELUDE}if redis.call('HGET', KEYS[1], 't') == ARGV[1] then
  local ends = tonumber(redis.call('HGET', KEYS[1], 'l'))
  if ends and ends > now then
    redis.call('HSET', KEYS[1], 'l', now + tonumber(ARGV[2]))
    keep(KEYS[1], tonumber(ARGV[2]))
    return 1
  end
end
return 0
`,
);

/**
 * No ARGV. Returns false when the key holds nothing, else { 'p' or 'c', ms left, server time in ms }: one
 * read of value, TTL and clock, so the expiry is on Redis's own clock. Read-only.
 */
export const INSPECT = script(
  'inspect',
  `local value = redis.call('GET', KEYS[1])
if not value then
  return false
end
local time = redis.call('TIME')
return { string.sub(value, 1, 1), redis.call('PTTL', KEYS[1]), tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) }
`,
);
