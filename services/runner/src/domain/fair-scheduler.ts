/**
 * Run slots shared fairly between tenants: at most `maxRunning` runs at once in this runner, at most
 * `maxPerTenant` of them for one tenant, and a freed slot goes to the next tenant in round-robin order that
 * has a run waiting. One tenant's long runs therefore never starve another tenant's short ones.
 */
export class FairScheduler {
  readonly #running = new Map<string, number>();
  readonly #waiting = new Map<string, { grant: () => void; reject: (err: Error) => void }[]>();
  /** Tenants in the order they get the next free slot (the last one served moves to the end). */
  readonly #order: string[] = [];
  #total = 0;
  #queued = 0;

  constructor(
    private readonly maxRunning: number,
    private readonly maxPerTenant: number,
  ) {}

  get running(): number {
    return this.#total;
  }

  get queued(): number {
    return this.#queued;
  }

  /**
   * A slot now, when nobody waits and the tenant is within its share (what `acquire` would grant at once), as
   * `acquire` would leave the state; else undefined. Spares a run the abort signal and its listener.
   */
  tryAcquire(tenant: string): (() => void) | undefined {
    const running = this.#running.get(tenant) ?? 0;
    if (this.#queued > 0 || this.#total >= this.maxRunning || running >= this.maxPerTenant) return undefined;
    // Served: to the back of the line.
    const i = this.#order.indexOf(tenant);
    if (i >= 0) this.#order.splice(i, 1);
    this.#order.push(tenant);
    this.#total += 1;
    this.#running.set(tenant, running + 1);
    return this.#releaser(tenant);
  }

  /** Resolves with a release function once the tenant has a slot; rejects if `signal` aborts first. */
  acquire(tenant: string, signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(abortError(signal));
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve(this.#releaser(tenant));
        },
        reject,
      };
      const onAbort = (): void => {
        const list = this.#waiting.get(tenant);
        const i = list?.indexOf(waiter) ?? -1;
        if (list && i >= 0) {
          list.splice(i, 1);
          this.#queued -= 1;
        }
        reject(abortError(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      let list = this.#waiting.get(tenant);
      if (!list) this.#waiting.set(tenant, (list = []));
      list.push(waiter);
      this.#queued += 1;
      if (!this.#order.includes(tenant)) this.#order.push(tenant);
      this.#dispatch();
    });
  }

  #releaser(tenant: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#total -= 1;
      const n = (this.#running.get(tenant) ?? 1) - 1;
      if (n === 0) this.#running.delete(tenant);
      else this.#running.set(tenant, n);
      this.#dispatch();
    };
  }

  #dispatch(): void {
    while (this.#total < this.maxRunning) {
      const i = this.#order.findIndex(
        (t) => (this.#waiting.get(t)?.length ?? 0) > 0 && (this.#running.get(t) ?? 0) < this.maxPerTenant,
      );
      if (i < 0) break;
      const tenant = this.#order[i]!;
      const waiter = this.#waiting.get(tenant)!.shift()!;
      this.#queued -= 1;
      // Served: to the back of the line.
      this.#order.splice(i, 1);
      this.#order.push(tenant);
      this.#total += 1;
      this.#running.set(tenant, (this.#running.get(tenant) ?? 0) + 1);
      waiter.grant();
    }
    // Forget tenants with nothing waiting or running (the order list stays small).
    for (let i = this.#order.length - 1; i >= 0; i--) {
      const t = this.#order[i]!;
      if ((this.#waiting.get(t)?.length ?? 0) === 0) {
        this.#waiting.delete(t);
        if (!this.#running.has(t)) this.#order.splice(i, 1);
      }
    }
  }
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('waiting for a run slot was aborted');
}
