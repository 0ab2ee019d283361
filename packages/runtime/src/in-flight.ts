import { AppError } from '@a2a-inbound/errors';

/** Gives an admitted slot back; idempotent. */
export type ReleaseSlot = () => void;

/** OVERLOADED (-32056, HTTP 503 on REST, `Retry-After`): refused before anything was charged, stored or run. */
export function overloadedError(message: string, retryAfterSeconds = 1): AppError {
  return new AppError('OVERLOADED', message, { details: { retryAfterSeconds } });
}

/**
 * A bound on work in flight in one process (load shedding): `admit` takes a slot or refuses at once with
 * OVERLOADED, so a burst beyond what the process can work through is answered in milliseconds instead of
 * queueing behind everything already admitted.
 */
export class InFlightLimit {
  #open = 0;

  constructor(
    readonly max: number,
    /** Names the work in the refusal, e.g. "requests waiting for the tasks service". */
    private readonly what: string,
  ) {}

  get open(): number {
    return this.#open;
  }

  admit(): ReleaseSlot {
    if (this.#open >= this.max) throw overloadedError(`Server busy: too many ${this.what}; retry shortly`);
    this.#open += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#open -= 1;
    };
  }
}

/** A counting semaphore (waits, where `InFlightLimit` refuses): `acquire` resolves a release once a slot is free (FIFO). */
export class Semaphore {
  #free: number;
  readonly #waiting: (() => void)[] = [];
  constructor(slots: number) {
    this.#free = slots;
  }
  async acquire(): Promise<() => void> {
    if (this.#free > 0) this.#free -= 1;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free += 1;
    };
  }
}
