/**
 * Cache port: string values with a TTL. Shared across replicas in production (Redis), so `delete` is the
 * invalidation every replica sees. In memory: an LRU bounded by entry count.
 */
export interface Cache {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}
