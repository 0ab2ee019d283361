import { afterAll, describe } from 'vitest';
import { Redis } from 'ioredis';
import {
  describeCacheContract,
  describeEventLogContract,
  describeRateLimiterContract,
} from '@a2a-inbound/ports/testing';
import { RedisCache, RedisEventLog, RedisRateLimiter } from '../src/index';
import { deleteByPrefix } from './helpers';

// Real-engine run: CI sets REDIS_URL (scripts/engines/up.sh prints it). Each factory call is a new
// client, so "two clients" in the suites are two connections, like two replicas.
const url = process.env.REDIS_URL ?? '';
const prefix = `test:${Date.now().toString(36)}:`;

describe.runIf(Boolean(url))('redis adapters (REDIS_URL)', () => {
  describeEventLogContract('redis', () => RedisEventLog.connect({ url, prefix: `${prefix}ev:` }), {
    lose: async (stream) => {
      const raw = new Redis(url);
      try {
        await raw.del(`${prefix}ev:${stream}`);
      } finally {
        raw.disconnect();
      }
    },
  });
  describeRateLimiterContract('redis', () => RedisRateLimiter.connect({ url, prefix: `${prefix}rl:` }));
  describeCacheContract('redis', () => RedisCache.connect({ url, prefix: `${prefix}c:` }));
  afterAll(async () => {
    const redis = new Redis(url);
    try {
      await deleteByPrefix(redis, prefix);
    } finally {
      redis.disconnect();
    }
  });
});
