import type { Clock } from '../clock';
import { systemClock } from '../clock';
import type { RateDecision, RateLimiter } from '../rate-limiter';

export class InMemoryRateLimiter implements RateLimiter {
  readonly #windows = new Map<string, { start: number; count: number }>();
  readonly #clock: Clock;
  readonly #maxKeys: number;

  constructor(options: { clock?: Clock; maxKeys?: number } = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#maxKeys = options.maxKeys ?? 100_000;
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    await Promise.resolve();
    const now = this.#clock.now();
    const start = Math.floor(now / windowMs) * windowMs;
    const mapKey = `${key}\u0000${windowMs}`;
    let w = this.#windows.get(mapKey);
    if (!w || w.start !== start) {
      if (!w && this.#windows.size >= this.#maxKeys) this.#sweep(now, windowMs);
      w = { start, count: 0 };
      this.#windows.delete(mapKey);
      this.#windows.set(mapKey, w);
    }
    const allowed = w.count < limit;
    if (allowed) w.count += 1;
    return { allowed, count: w.count, limit, resetAtMs: start + windowMs };
  }

  #sweep(now: number, windowMs: number): void {
    for (const [k, w] of this.#windows) {
      if (w.start + windowMs <= now || this.#windows.size >= this.#maxKeys) this.#windows.delete(k);
      if (this.#windows.size < this.#maxKeys / 2) break;
    }
  }

  async close(): Promise<void> {
    this.#windows.clear();
    await Promise.resolve();
  }
}
