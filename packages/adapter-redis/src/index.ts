export { RedisEventLog } from './redis-event-log';
export type { RedisEventLogOptions } from './redis-event-log';
export { RedisRateLimiter } from './redis-rate-limiter';
export type { RedisRateLimiterOptions } from './redis-rate-limiter';
export { RedisCache } from './redis-cache';
export type { RedisCacheOptions } from './redis-cache';
export type { AdapterLog, RedisConnectOptions } from './connection';
