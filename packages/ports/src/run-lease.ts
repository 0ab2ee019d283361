import type { Cache } from './cache';

/**
 * Run leases in the shared cache (Redis in production): how the tasks service learns that a run is alive
 * without reading the task-events stream (which can lag behind under load or after an outage). ADR 0011.
 *
 * - `running:<runner>`: a runner holds the run; it rewrites the lease every heartbeat with a TTL of a few
 *   heartbeats, so the key disappears soon after the runner does.
 * - `done`: the run emitted its last event; kept long enough that a redelivered request is recognised and
 *   not run again, and that a stalled sweep knows the events are merely on their way.
 * A missing lease means "not started yet" (queued) or "holder lost"; the sweeper tells them apart with the
 * `started` marker, which a runner sets with the lease and which outlives it.
 */
export type RunLease = { state: 'running'; holder: string } | { state: 'done' };

const leaseKey = (runId: string): string => `run:lease:${runId}`;
const startedKey = (runId: string): string => `run:started:${runId}`;
const lostKey = (runId: string): string => `run:lost:${runId}`;
const republishKey = (runId: string): string => `run:republish:${runId}`;
const canceledKey = (runId: string): string => `run:canceled:${runId}`;

export class RunLeases {
  constructor(private readonly cache: Cache) {}

  async get(runId: string): Promise<RunLease | undefined> {
    const v = await this.cache.get(leaseKey(runId));
    if (v === undefined) return undefined;
    if (v === 'done') return { state: 'done' };
    if (v.startsWith('running:')) return { state: 'running', holder: v.slice('running:'.length) };
    return undefined;
  }

  /**
   * Takes the lease when no one holds it (set-if-absent: of two runners that both saw it free, one takes it),
   * or when `holder` already does; then marks the run as started. Resolves false when another holder has it
   * or the run is `done`.
   */
  async take(runId: string, holder: string, ttlMs: number, startedTtlMs: number): Promise<boolean> {
    const value = `running:${holder}`;
    if (!(await this.cache.setIfAbsent(leaseKey(runId), value, ttlMs))) {
      if ((await this.cache.get(leaseKey(runId))) !== value) return false;
      await this.cache.set(leaseKey(runId), value, ttlMs);
    }
    await this.cache.set(startedKey(runId), '1', startedTtlMs);
    return true;
  }

  /** Renews the lease this holder took (`take`), and the started marker (it lives `startedTtlMs`). */
  async hold(runId: string, holder: string, ttlMs: number, startedTtlMs: number): Promise<void> {
    await this.cache.set(leaseKey(runId), `running:${holder}`, ttlMs);
    await this.cache.set(startedKey(runId), '1', startedTtlMs);
  }

  async finish(runId: string, ttlMs: number): Promise<void> {
    await this.cache.set(leaseKey(runId), 'done', ttlMs);
  }

  /**
   * Marks a run canceled (the tasks service, before it publishes the cancel): a runner that gets the run's
   * request after the cancel went by skips it instead of running it to the end for nothing.
   */
  async cancel(runId: string, ttlMs: number): Promise<void> {
    await this.cache.set(canceledKey(runId), '1', ttlMs);
  }

  async canceled(runId: string): Promise<boolean> {
    return (await this.cache.get(canceledKey(runId))) !== undefined;
  }

  /** Lets the lease go without finishing (the run was handed back): the next holder may start at once. */
  async release(runId: string): Promise<void> {
    await this.cache.delete(leaseKey(runId));
  }

  async started(runId: string): Promise<boolean> {
    return (await this.cache.get(startedKey(runId))) !== undefined;
  }

  /** When a sweeper first saw the started run without a holder (shared by every tasks replica). */
  async lostSince(runId: string, now: number, ttlMs: number): Promise<number> {
    const v = await this.cache.get(lostKey(runId));
    if (v !== undefined && Number.isFinite(Number(v))) return Number(v);
    await this.cache.set(lostKey(runId), String(now), ttlMs);
    return now;
  }

  /** True when no replica re-published the run's request within the last `windowMs` (then this one may). */
  async claimRepublish(runId: string, windowMs: number): Promise<boolean> {
    if ((await this.cache.get(republishKey(runId))) !== undefined) return false;
    await this.cache.set(republishKey(runId), '1', windowMs);
    return true;
  }
}
