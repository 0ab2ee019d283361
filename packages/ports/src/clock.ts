import { randomUUID } from 'node:crypto';

/** Injected wherever time matters (TTLs, windows, budgets, backoff), so tests control time. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  #now: number;
  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }
  now(): number {
    return this.#now;
  }
  advance(ms: number): void {
    this.#now += ms;
  }
}

export interface IdGenerator {
  /** A new globally unique id (UUID v4 by default). */
  next(): string;
}

export const randomIds: IdGenerator = { next: () => randomUUID() };

/** Deterministic ids for tests: prefix-1, prefix-2, … */
export class SequentialIds implements IdGenerator {
  #n = 0;
  constructor(private readonly prefix = 'id') {}
  next(): string {
    this.#n += 1;
    return `${this.prefix}-${this.#n}`;
  }
}
