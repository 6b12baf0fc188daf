export type { RedisStoreErrorCode } from './error-codes.js';
export { RedisStoreError } from './errors.js';
export {
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_PREFIX,
  RedisStore,
  type RedisStoreClientOptions,
  type RedisStoreCommonOptions,
  type RedisStoreOptions,
  type RedisStoreSendCommandOptions,
} from './redis-store.js';
export type {
  ClientType,
  IoredisLike,
  NodeRedisClusterLike,
  NodeRedisLike,
  SendCommand,
} from './send-command.js';
