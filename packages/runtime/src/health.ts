import * as grpc from '@grpc/grpc-js';
import { AppError } from '@a2a-inbound/errors';
import { healthV1 } from '@a2a-inbound/proto';
import type { Logger } from '@a2a-inbound/logger';
import { grpcChannelOptions } from './grpc';

export type HealthStatus = 'SERVING' | 'NOT_SERVING' | 'UNKNOWN' | 'SERVICE_UNKNOWN';

/**
 * One grpc.health.v1 Check against `address` (host:port) on a fresh channel, so it says whether the server
 * answers now (a long-lived channel may still be in its reconnect backoff). Resolves the status; rejects
 * with UNAVAILABLE when nothing answers within `timeoutMs`.
 */
export async function checkHealth(
  address: string,
  options: { timeoutMs?: number; service?: string; credentials?: grpc.ChannelCredentials } = {},
): Promise<HealthStatus> {
  const client = new healthV1.HealthClient(
    address,
    options.credentials ?? grpc.credentials.createInsecure(),
    grpcChannelOptions,
  );
  try {
    const res = await new Promise<healthV1.HealthCheckResponse>((resolve, reject) => {
      client.check(
        { service: options.service ?? '' },
        new grpc.Metadata(),
        { deadline: new Date(Date.now() + (options.timeoutMs ?? 1_000)) },
        (err, r) => (err ? reject(err) : resolve(r)),
      );
    });
    switch (res.status) {
      case healthV1.HealthCheckResponse_ServingStatus.SERVING:
        return 'SERVING';
      case healthV1.HealthCheckResponse_ServingStatus.NOT_SERVING:
        return 'NOT_SERVING';
      case healthV1.HealthCheckResponse_ServingStatus.SERVICE_UNKNOWN:
        return 'SERVICE_UNKNOWN';
      default:
        return 'UNKNOWN';
    }
  } catch (err) {
    throw new AppError('UNAVAILABLE', `gRPC health check of ${address} failed`, { cause: err });
  } finally {
    client.close();
  }
}

/** Rejects when `promise` has not settled within `ms` (readiness probes must answer in bounded time). */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AppError('UNAVAILABLE', `${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export interface ReadinessOptions {
  /** How often the checks run (a gRPC Check reads the last result, it does not ping). */
  readonly intervalMs: number;
  /** A check slower than this counts as failed. */
  readonly timeoutMs?: number;
  readonly log?: Logger;
}

/**
 * Readiness refreshed in the background: `check()` (resolving = ready) runs every `intervalMs`; `isReady()`
 * returns the last result, and false for good once `stop()` was called (shutdown began). Starts ready:
 * construct it after the engines are connected. Transitions are logged once each.
 */
export class PeriodicReadiness {
  #ready = true;
  #stopped = false;
  #running: Promise<void> | undefined;
  readonly #timer: NodeJS.Timeout;

  constructor(
    private readonly check: () => Promise<void>,
    private readonly options: ReadinessOptions,
  ) {
    this.#timer = setInterval(() => void this.refresh(), options.intervalMs);
    this.#timer.unref();
  }

  isReady(): boolean {
    return this.#ready && !this.#stopped;
  }

  /** Runs the checks now (one at a time); resolves with the new state. */
  refresh(): Promise<boolean> {
    this.#running ??= (async () => {
      let ok: boolean;
      let failure: unknown;
      try {
        await withDeadline(
          this.check(),
          this.options.timeoutMs ?? Math.max(this.options.intervalMs, 1_000),
          'readiness check',
        );
        ok = true;
      } catch (err) {
        ok = false;
        failure = err;
      }
      if (ok !== this.#ready && !this.#stopped) {
        if (ok) this.options.log?.info('ready again: engines answer');
        else this.options.log?.warn({ err: failure }, 'not ready: an engine does not answer');
      }
      this.#ready = ok;
    })().finally(() => {
      this.#running = undefined;
    });
    return this.#running.then(() => this.isReady());
  }

  /** Shutdown began: not ready from now on, and no more checks. */
  stop(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
  }
}
