/**
 * Cache port: string values with a TTL. Shared across replicas in production (Redis), so `delete` is the
 * invalidation every replica sees. In memory: an LRU bounded by entry count.
 */
export interface Cache {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Sets the key only when it holds no value (atomically, as Redis `SET NX`); resolves whether it did. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Parsed cache values, kept per key while the cached string stays the same: a hot read that finds the same entry
 * again gets the same value instead of parsing it again (a send reads the agent and key entries several times).
 * Values are frozen (deeply): callers share them and must treat them as read-only. Bounded by `maxEntries`
 * (emptied when full); a changed entry is parsed anew, so nothing here can be staler than the cache.
 */
export class ParsedValues<T> {
  readonly #entries = new Map<string, { raw: string; value: T }>();

  constructor(
    private readonly parse: (raw: string) => T,
    private readonly maxEntries = 1_000,
  ) {}

  get(key: string, raw: string): T {
    const e = this.#entries.get(key);
    if (e !== undefined && e.raw === raw) return e.value;
    const value = deepFreeze(this.parse(raw));
    if (e === undefined && this.#entries.size >= this.maxEntries) this.#entries.clear();
    this.#entries.set(key, { raw, value });
    return value;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const v of Object.values(value)) deepFreeze(v);
  return Object.freeze(value);
}
