import type { Cache } from '../cache';
import type { Clock } from '../clock';
import { systemClock } from '../clock';

/** LRU bounded by entry count, with per-entry TTL. */
export class InMemoryCache implements Cache {
  readonly #entries = new Map<string, { value: string; expiresAt: number }>();
  readonly #clock: Clock;
  readonly #maxEntries: number;

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
    this.#entries.delete(key);
    this.#entries.set(key, e); // most recently used last
    return e.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await Promise.resolve();
    this.#entries.delete(key);
    while (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expiresAt: this.#clock.now() + ttlMs });
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
