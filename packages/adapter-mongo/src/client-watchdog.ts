import type { AdapterLog } from './mongo-common';

/** What the watchdog needs of a driver client: its heartbeat events, a probe and a reconnect. */
export interface WatchedClient {
  on(event: 'serverHeartbeatSucceeded', listener: () => void): unknown;
  /** A fresh, independent connection answers a ping: the server is up. */
  probe(): Promise<boolean>;
  /** Closes the client's topology and connects it again (collections and handles stay valid). */
  reconnect(): Promise<void>;
}

export interface ClientWatchdogOptions {
  /** No successful heartbeat for this long while a fresh probe succeeds: the client is stuck. */
  staleMs?: number;
  intervalMs?: number;
  now?: () => number;
  log: AdapterLog;
  name: string;
}

/**
 * Unsticks a driver client whose server monitor stopped (seen after FerretDB restarts under load: the
 * monitor's first heartbeat never completed, so every operation failed server selection for minutes while
 * the server answered fresh connections). When no heartbeat succeeded for `staleMs` but a fresh connection
 * can ping the server, the client is closed and connected again. A server that is really down is left to
 * the driver (nothing to fix on our side).
 */
export class ClientWatchdog {
  #lastHealthy: number;
  #busy = false;
  #timer: NodeJS.Timeout | undefined;
  readonly #now: () => number;
  readonly #staleMs: number;

  constructor(
    private readonly client: WatchedClient,
    private readonly options: ClientWatchdogOptions,
  ) {
    this.#now = options.now ?? Date.now;
    this.#staleMs = options.staleMs ?? 15_000;
    this.#lastHealthy = this.#now();
    client.on('serverHeartbeatSucceeded', () => {
      this.#lastHealthy = this.#now();
    });
  }

  start(): this {
    this.#timer = setInterval(() => void this.check(), this.options.intervalMs ?? 5_000);
    this.#timer.unref();
    return this;
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One check (the timer calls it); resolves to whether the client was reconnected. */
  async check(): Promise<boolean> {
    if (this.#busy || this.#now() - this.#lastHealthy < this.#staleMs) return false;
    this.#busy = true;
    try {
      if (!(await this.client.probe().catch(() => false))) return false;
      const silentMs = this.#now() - this.#lastHealthy;
      this.options.log.warn(
        { client: this.options.name, silentMs },
        'MongoDB answers but this client has not heard from it: reconnecting the client',
      );
      await this.client.reconnect();
      this.#lastHealthy = this.#now();
      return true;
    } catch (err) {
      this.options.log.error({ err, client: this.options.name }, 'MongoDB client reconnect failed');
      return false;
    } finally {
      this.#busy = false;
    }
  }
}
