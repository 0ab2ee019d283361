import type { Cache } from '../cache';
import type { Clock } from '../clock';
import { systemClock } from '../clock';

interface Entry {
  value: string;
  expiresAt: number;
  /** Insertions into the map (sets and recency moves) before this entry was last put at its end. */
  stamp: number;
}

/**
 * LRU bounded by entry count, with per-entry TTL. Recency is kept without moving every entry read: an entry
 * is moved to the end (most recently used) only when at least `maxEntries / 2` insertions happened since it
 * was last put there. An entry read at least that often is never evicted (it takes `maxEntries - 1`
 * insertions to reach the front), the others are evicted oldest first, within a factor of two of strict LRU.
 * Moving every read entry on a full map of 10,000 was 4-6 % of the embedded send's CPU (docs/performance.md).
 */
export class InMemoryCache implements Cache {
  readonly #entries = new Map<string, Entry>();
  readonly #clock: Clock;
  readonly #maxEntries: number;
  #insertions = 0;

  constructor(options: { clock?: Clock; maxEntries?: number } = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#maxEntries = options.maxEntries ?? 10_000;
  }

  async get(key: string): Promise<string | undefined> {
    await Promise.resolve();
    const e = this.#entries.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= this.#clock.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    if (this.#insertions - e.stamp >= this.#maxEntries / 2) {
      this.#entries.delete(key);
      e.stamp = this.#insertions++;
      this.#entries.set(key, e); // most recently used last
    }
    return e.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await Promise.resolve();
    this.#put(key, value, ttlMs);
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    await Promise.resolve();
    const e = this.#entries.get(key);
    if (e && e.expiresAt > this.#clock.now()) return false;
    this.#put(key, value, ttlMs);
    return true;
  }

  #put(key: string, value: string, ttlMs: number): void {
    this.#entries.delete(key);
    while (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expiresAt: this.#clock.now() + ttlMs, stamp: this.#insertions++ });
  }

  async delete(key: string): Promise<void> {
    await Promise.resolve();
    this.#entries.delete(key);
  }

  async close(): Promise<void> {
    this.#entries.clear();
    await Promise.resolve();
  }
}
