/**
 * Rate limiter port: fixed window of `windowMs`, `limit` hits per key per window, atomic across replicas.
 * The hit that is refused is not counted against later windows.
 */
export interface RateDecision {
  readonly allowed: boolean;
  /** Hits counted in this window, including this one when allowed. */
  readonly count: number;
  readonly limit: number;
  /** When the window ends (ms epoch). */
  readonly resetAtMs: number;
}

export interface RateLimiter {
  hit(key: string, limit: number, windowMs: number): Promise<RateDecision>;
  close(): Promise<void>;
}
