import type { Message } from '@a2a-js/sdk';
import type { Logger } from '@a2a-inbound/logger';
import { a2aMeter, withSpan } from '@a2a-inbound/telemetry';
import { LargePayloads, RunLeases, type BlobStore, type Bus, type Cache, type Clock } from '@a2a-inbound/ports';
import { encodeShared, eventsV1 } from '@a2a-inbound/proto';
import { secretAad, type SecretBox } from '@a2a-inbound/agent-definitions';
import { RUN_CANCELED, SecretUnavailableError, type AgentRuntime, type RunContext } from './agent-runtime';
import { EventPipe } from './event-pipe';
import { FairScheduler } from './fair-scheduler';

export const TOPICS = {
  runRequested: 'a2a.run.requested',
  runCancel: 'a2a.run.cancel',
  taskEvents: 'a2a.task.events',
} as const;

/** INITIALIZED → RUNNING → DRAINING → STOPPED. */
export type RunnerState = 'INITIALIZED' | 'RUNNING' | 'DRAINING' | 'STOPPED';

export interface RunnerConfig {
  /** This replica's name: the holder written into run leases. */
  instanceId: string;
  /** How often the lease of every run this runner holds is renewed. */
  heartbeatMs: number;
  /** Lease TTL: a run whose runner vanished shows as unheld after this long. */
  leaseMs: number;
  shutdownGraceMs: number;
  /** Runs executing at once in this runner. */
  maxConcurrentRuns: number;
  /** Runs of one tenant (subscription) executing at once in this runner. */
  maxRunsPerTenant: number;
  /**
   * Runs (executing or waiting for a slot) beyond which a request handed over in this process is refused
   * (`offer` answers false: it waits on the bus instead). The bus consumer's bound; default maxConcurrentRuns.
   */
  maxOfferedRuns?: number;
}

/**
 * Where a run's events go when the tasks service runs in this process (the embedded mode, ADR 0053): applied
 * by it directly, as its bus consumer would, without encoding them or a bus hop.
 */
export interface LocalRunEvents {
  /** Whether a run starting now sends its events this way (false: on the bus, e.g. while tracing is on). */
  accepts(): boolean;
  /** Applies one message of a run's events (an event or a batch); resolves once applied. */
  apply(message: eventsV1.TaskEvent): Promise<void>;
}

/** How long a finished run is remembered (a redelivered request for it is not run again). */
const DONE_TTL_MS = 24 * 3600_000;

/** Where a run's checkpoint (RunContext.checkpoint) lives in the shared cache. */
const checkpointKey = (runId: string): string => `run:checkpoint:${runId}`;

/** Publishing a run event failed (bus outage): the run is handed back, never turned into a failed task. */
class EmitFailed extends Error {
  constructor(override readonly cause: unknown) {
    super('run event could not be published');
  }
}

/**
 * A run's cancellation: a flag, and an `AbortSignal` made only when something asks for one (a runtime reading
 * `ctx.signal`, a sleep, a wait for a slot). Most runs never do, and a controller and its signal per run were a
 * measurable share of an echo send's CPU.
 */
class RunAbort {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;

  get aborted(): boolean {
    return this.#aborted;
  }

  /** Aborted already (with the same reason) when made after `abort`. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  abort(reason?: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}

class RunAborted extends Error {
  constructor() {
    super('run aborted');
  }
}

/**
 * Executes runs: one RunRequested → the agent runtime → TaskEvents with run_seq 1, 2, 3…
 *
 * Runs execute concurrently (the bus delivers different tasks' requests in parallel) within fair slots: at
 * most `maxConcurrentRuns`, at most `maxRunsPerTenant` per subscription, freed slots going round-robin to
 * the tenants with runs waiting. A run's liveness is its lease in the shared cache, renewed every heartbeat
 * (ADR 0011). A request is acknowledged on the bus only when its run emitted its last event, so a runner
 * that dies hands its runs to another runner; that runner waits for the dead holder's lease to lapse, then
 * runs it again from scratch with the same run id, and the tasks service drops the events it already
 * applied. A redelivered request whose run already finished is recognised by its `done` lease and skipped.
 */
export class Runner {
  state: RunnerState = 'INITIALIZED';
  readonly #inflight = new Map<string, RunAbort>();
  readonly #done = new Set<Promise<void>>();
  /** Aborted on drain: wakes runs still waiting for a slot or for another holder's lease. */
  readonly #draining = new AbortController();
  readonly #slots: FairScheduler;
  readonly #leases: RunLeases;
  readonly #payloads: LargePayloads;
  readonly #runsInFlight = a2aMeter().createUpDownCounter('a2a_runs_in_flight', {
    description: 'Runs executing in this runner now',
  });
  readonly #runDuration = a2aMeter().createHistogram('a2a_run_duration_seconds', {
    description: 'Run duration by runtime and outcome (completed, failed, canceled, handed_back)',
    unit: 's',
    advice: { explicitBucketBoundaries: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900] },
  });

  constructor(
    private readonly deps: {
      bus: Bus;
      cache: Cache;
      /** Large parts of run inputs and outputs (ADR 0013), owned by the run's subscription. */
      blobs: BlobStore;
      clock: Clock;
      log: Logger;
      runtimes: Readonly<Record<string, AgentRuntime>>;
      config: RunnerConfig;
      /** Opens the sealed secrets of run requests (SECRETS_KEY); without it no secret is available. */
      secretBox?: SecretBox | undefined;
      /** The tasks service of this process, when it is in this process (the embedded mode). */
      localEvents?: LocalRunEvents | undefined;
    },
  ) {
    this.#slots = new FairScheduler(deps.config.maxConcurrentRuns, deps.config.maxRunsPerTenant);
    this.#leases = new RunLeases(deps.cache);
    this.#payloads = new LargePayloads(deps.blobs);
  }

  /**
   * The run's input as the agent sees it: the message and the conversation memory with every spilled part
   * resolved (from the blob store), read from the input blob when the request carried only its reference.
   */
  async #runInput(req: eventsV1.RunRequested): Promise<{ message: Message; history: Message[] }> {
    const owner = req.subscriptionId;
    let { messageJson, historyJson } = req;
    if (req.inputBlobId) {
      const input = (await this.#payloads.getJson(req.inputBlobId, owner)) as {
        messageJson: string;
        historyJson: string;
      };
      ({ messageJson, historyJson } = input);
    }
    const message = await this.#payloads.resolveMessage(JSON.parse(messageJson) as Message, owner);
    const stored = historyJson ? (JSON.parse(historyJson) as Message[]) : [];
    const history: Message[] = [];
    for (const m of stored) history.push(await this.#payloads.resolveMessage(m, owner));
    return { message, history };
  }

  get inflight(): number {
    return this.#inflight.size;
  }

  /** Runs executing and runs waiting for a slot. */
  get load(): { running: number; queued: number } {
    return { running: this.#slots.running, queued: this.#slots.queued };
  }

  cancel(taskId: string, runId: string): void {
    const ac = this.#inflight.get(`${taskId}/${runId}`);
    if (ac) {
      this.deps.log.info({ taskId, runId }, 'run canceled');
      ac.abort(RUN_CANCELED);
    }
  }

  /**
   * A run request handed over in this process instead of the bus (the embedded mode, ADR 0053): taken when
   * this runner is running and has room (false: the caller publishes it on the bus). A run handed back (a
   * drain, an outage) goes to `handBack`, which publishes it on the bus: redelivered, as a bus request is.
   */
  offer(req: eventsV1.RunRequested, handBack: (req: eventsV1.RunRequested, err: unknown) => void): boolean {
    const max = this.deps.config.maxOfferedRuns ?? this.deps.config.maxConcurrentRuns;
    if (this.state !== 'RUNNING' || this.#inflight.size >= max) return false;
    this.handle(req).catch((err: unknown) => handBack(req, err));
    return true;
  }

  /** Handles one run request; resolves when the run has emitted its last event (then the bus commits). */
  async handle(req: eventsV1.RunRequested): Promise<void> {
    if (this.state === 'DRAINING' || this.state === 'STOPPED') throw new Error('runner is draining');
    if (req.deadlineMs && this.deps.clock.now() > req.deadlineMs) {
      this.deps.log.warn({ taskId: req.taskId, runId: req.runId }, 'run request past its deadline: skipped');
      return;
    }
    const key = `${req.taskId}/${req.runId}`;
    if (this.#inflight.has(key)) return; // already running here (a redelivery racing the first copy)
    const ac = new RunAbort();
    this.#inflight.set(key, ac);
    const work = this.#admitAndRun(req, ac);
    this.#done.add(work);
    try {
      await work;
    } finally {
      this.#done.delete(work);
      this.#inflight.delete(key);
    }
  }

  async #admitAndRun(req: eventsV1.RunRequested, ac: RunAbort): Promise<void> {
    const { log } = this.deps;
    // Made only when the run has to wait (a lease held elsewhere, no free slot): most runs start at once.
    let signal: AbortSignal | undefined;
    const waitSignal = (): AbortSignal => (signal ??= AbortSignal.any([this.#draining.signal, ac.signal]));
    // Another runner may still hold it (a rebalance handed us its request): wait for its lease to lapse.
    for (;;) {
      const [lease, canceled] = await Promise.all([this.#leases.get(req.runId), this.#leases.canceled(req.runId)]);
      if (canceled) {
        log.info({ taskId: req.taskId, runId: req.runId }, 'run canceled before it started: skipped');
        return;
      }
      if (lease?.state === 'done') {
        log.info({ taskId: req.taskId, runId: req.runId }, 'run already finished (redelivered request): skipped');
        return;
      }
      if (lease?.state !== 'running' || lease.holder === this.deps.config.instanceId) break;
      if (!(await this.#pause(this.deps.config.heartbeatMs, waitSignal()))) return this.#notRun();
    }
    let release: () => void;
    try {
      const tenant = req.subscriptionId || req.taskId;
      const waitable = !ac.aborted && !this.#draining.signal.aborted; // else acquire refuses, as before
      release =
        (waitable ? this.#slots.tryAcquire(tenant) : undefined) ?? (await this.#slots.acquire(tenant, waitSignal()));
    } catch {
      return this.#notRun();
    }
    let ran: 'ran' | 'taken';
    try {
      const attributes = {
        'a2a.runtime': req.runtime,
        'a2a.agent_version': req.agentVersion,
        'a2a.agent_id': req.agentId,
        'a2a.task_id': req.taskId,
        'a2a.run_id': req.runId,
      };
      ran = await withSpan('@a2a-inbound/runner', 'runner.run', attributes, () => this.#run(req, ac));
    } finally {
      release();
    }
    // Another runner took the lease first (both saw it free): wait behind it, as for a holder seen above.
    if (ran === 'taken') return this.#admitAndRun(req, ac);
  }

  /** Not run (canceled or draining while it waited): a drain hands the request back uncommitted. */
  #notRun(): void {
    if (this.state === 'DRAINING' || this.state === 'STOPPED') throw new Error('run handed back on shutdown');
  }

  #pause(ms: number, signal: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve(false);
      const t = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      }, ms);
      const onAbort = (): void => {
        clearTimeout(t);
        resolve(false);
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Runs it; `taken` (nothing run) when another runner took the lease after this one saw it free. */
  async #run(req: eventsV1.RunRequested, ac: RunAbort): Promise<'ran' | 'taken'> {
    const { bus, log } = this.deps;
    // The tasks service of this process applies the events directly (ADR 0053) until an apply fails: from
    // then on this run's events take the bus (retried there), so they are never applied out of order.
    let local = this.deps.localEvents?.accepts() ? this.deps.localEvents : undefined;
    const publish = async (message: eventsV1.TaskEvent): Promise<void> => {
      if (local) {
        try {
          return await local.apply(message);
        } catch (err) {
          log.warn({ err, taskId: req.taskId }, 'run events not applied in this process: sent on the bus');
          local = undefined;
        }
      }
      const value = encodeShared(eventsV1.TaskEvent, message);
      await bus.publish({ topic: TOPICS.taskEvents, key: req.taskId, value }).catch((err: unknown) => {
        throw new EmitFailed(err);
      });
    };
    // Events are queued and published in order, what is ready together as one bus message (ADR 0025).
    const pipe = new EventPipe({ taskId: req.taskId, runId: req.runId, now: () => this.deps.clock.now(), publish });
    const emit = (event: eventsV1.TaskEvent['event']): Promise<void> => pipe.emit(event);
    const { instanceId, leaseMs, heartbeatMs } = this.deps.config;
    const startedTtl = Math.max(leaseMs, (req.deadlineMs || this.deps.clock.now()) - this.deps.clock.now()) + leaseMs;
    const renew = (): Promise<void> => this.#leases.hold(req.runId, instanceId, leaseMs, startedTtl);
    // Read before the lease is taken: a blob store outage hands the request back like a bus outage.
    const input = await this.#runInput(req);
    const owner = req.subscriptionId;
    // Exclusive: two copies of a request (a redelivery, a republish handed to another runner) may both have
    // found the lease free above; only one runs.
    if (!(await this.#leases.take(req.runId, instanceId, leaseMs, startedTtl))) {
      log.info({ taskId: req.taskId, runId: req.runId }, 'run taken by another runner meanwhile: waiting behind it');
      return 'taken';
    }
    const heartbeat = setInterval(() => {
      renew().catch((err: unknown) => log.warn({ err, taskId: req.taskId }, 'run lease renewal failed'));
    }, heartbeatMs);
    heartbeat.unref();
    // `done` only once the run's last event is out; otherwise the lease is released for the redelivery.
    let settled = false;
    let finished = false;
    let lastState: string | undefined;
    const ctx: RunContext = {
      taskId: req.taskId,
      contextId: req.contextId,
      message: input.message,
      history: input.history,
      attachments: req.attachments,
      config: req.runtimeConfigJson ? (JSON.parse(req.runtimeConfigJson) as Record<string, unknown>) : {},
      get signal() {
        return ac.signal;
      },
      artifact: async (a) => {
        if (ac.aborted) throw new RunAborted();
        // Large output goes to the blob store; the event carries references (bus messages stay small).
        const parts = await this.#spill(() => this.#payloads.compactParts(a.parts, owner));
        await emit({
          $case: 'artifact',
          artifact: {
            artifactId: a.artifactId,
            name: a.name,
            partsJson: JSON.stringify(parts),
            append: a.append,
            lastChunk: a.lastChunk,
          },
        });
      },
      status: async (state, message) => {
        if (ac.aborted) throw new RunAborted();
        if (state !== 'working') {
          finished = true;
          lastState = state;
        }
        const stored = message ? await this.#spill(() => this.#payloads.compactMessage(message, owner)) : undefined;
        await emit({ $case: 'status', status: { state, messageJson: stored ? JSON.stringify(stored) : '' } });
        // The run's last status resolves once it is out, with everything before it.
        if (state !== 'working') await pipe.flush();
      },
      sleep: (ms) =>
        new Promise<void>((resolve, reject) => {
          if (ac.aborted) return reject(new RunAborted());
          const t = setTimeout(() => {
            ac.signal.removeEventListener('abort', onAbort);
            resolve();
          }, ms);
          const onAbort = (): void => {
            clearTimeout(t);
            reject(new RunAborted());
          };
          ac.signal.addEventListener('abort', onAbort, { once: true });
        }),
      readFile: async (blobId) => {
        const got = await this.deps.blobs.get(blobId, owner);
        if (!got) return undefined;
        const { mimeType, name } = got.ref;
        return { data: got.data, mimeType, ...(name ? { name } : {}) };
      },
      checkpoint: {
        load: async () => {
          const raw = await this.deps.cache.get(checkpointKey(req.runId)).catch((err: unknown) => {
            throw new EmitFailed(err);
          });
          return raw === undefined ? undefined : (JSON.parse(raw) as unknown);
        },
        // A checkpoint that cannot be written (cache outage) hands the run back, like an event that cannot be sent.
        // The events emitted before it are out first: the checkpoint never runs ahead of them.
        save: async (state) => {
          await pipe.flush();
          await this.deps.cache
            .set(checkpointKey(req.runId), JSON.stringify(state), startedTtl + DONE_TTL_MS)
            .catch((err: unknown) => {
              throw new EmitFailed(err);
            });
        },
      },
      secret: (name) => {
        const sealed = req.sealedSecrets[name];
        if (sealed === undefined) throw new SecretUnavailableError(name, 'it does not exist (deleted?)');
        if (!this.deps.secretBox) throw new SecretUnavailableError(name, 'this runner has no SECRETS_KEY');
        try {
          return this.deps.secretBox.open(sealed, secretAad(req.subscriptionId, name));
        } catch {
          throw new SecretUnavailableError(name, 'it was sealed with a key this runner does not have (SECRETS_KEY)');
        }
      },
    };
    const runtime = this.deps.runtimes[req.runtime];
    const started = this.deps.clock.now();
    log.info({ taskId: req.taskId, runId: req.runId, runtime: req.runtime, version: req.agentVersion }, 'run started');
    // The runtime label is bounded: a runtime this runner has, or `_unknown`.
    const runtimeLabel = runtime ? req.runtime : '_unknown';
    let outcome = 'handed_back';
    const startedAt = process.hrtime.bigint();
    this.#runsInFlight.add(1, { runtime: runtimeLabel });
    try {
      if (!runtime) {
        await ctx.status('failed', {
          kind: 'message',
          role: 'agent',
          messageId: `${req.taskId}-no-runtime`,
          parts: [
            { kind: 'text', text: `No runtime "${req.runtime}" is available for agent version ${req.agentVersion}.` },
          ],
        });
        settled = true;
        outcome = 'failed';
        return 'ran';
      }
      await runtime(ctx);
      if (!finished) await ctx.status('completed');
      await pipe.flush(); // a runtime that ended without a final status of its own: still all out
      settled = true;
      outcome = lastState ?? 'completed';
      log.info(
        {
          taskId: req.taskId,
          runId: req.runId,
          runtime: req.runtime,
          version: req.agentVersion,
          ms: this.deps.clock.now() - started,
        },
        'run finished',
      );
    } catch (err) {
      if (err instanceof RunAborted || ac.aborted) {
        pipe.close();
        if (this.state === 'DRAINING') throw new Error('run handed back on shutdown'); // not committed: redelivered
        settled = true;
        outcome = 'canceled';
        return 'ran'; // canceled: the tasks service already recorded it
      }
      if (err instanceof EmitFailed) {
        // The bus is down: not the agent's fault. Hand the run back (retried when the bus is back) rather
        // than fail a task for an outage.
        log.warn({ err: err.cause, taskId: req.taskId }, 'run events could not be published: run handed back');
        throw err.cause;
      }
      log.error({ err, taskId: req.taskId }, 'agent run crashed');
      await emit({
        $case: 'status',
        status: {
          state: 'failed',
          messageJson: JSON.stringify({
            kind: 'message',
            role: 'agent',
            messageId: `${req.taskId}-crash-${req.runId}`,
            parts: [{ kind: 'text', text: 'The agent failed unexpectedly while running.' }],
          }),
        },
      })
        .then(() => pipe.flush())
        .catch((e: unknown) => {
          throw e instanceof EmitFailed ? e.cause : e;
        });
      settled = true;
      outcome = 'failed';
    } finally {
      if (!settled) pipe.close(); // handed back: the redelivered run emits them again
      clearInterval(heartbeat);
      this.#runsInFlight.add(-1, { runtime: runtimeLabel });
      this.#runDuration.record(Number(process.hrtime.bigint() - startedAt) / 1e9, { runtime: runtimeLabel, outcome });
      const settle = settled ? this.#leases.finish(req.runId, DONE_TTL_MS) : this.#leases.release(req.runId);
      await settle.catch((err: unknown) => log.warn({ err, taskId: req.taskId }, 'run lease update failed'));
    }
    return 'ran';
  }

  /** Storing output failed (blob store outage): like a bus outage, the run is handed back, not failed. */
  async #spill<T>(store: () => Promise<T>): Promise<T> {
    try {
      return await store();
    } catch (err) {
      throw new EmitFailed(err);
    }
  }

  /** Stops taking runs, lets in-flight runs finish within the grace period, then aborts (hands back) the rest. */
  async drain(): Promise<void> {
    this.state = 'DRAINING';
    this.#draining.abort();
    const grace = new Promise<void>((resolve) => setTimeout(resolve, this.deps.config.shutdownGraceMs).unref());
    await Promise.race([Promise.allSettled([...this.#done]), grace]);
    for (const ac of this.#inflight.values()) ac.abort();
    await Promise.allSettled([...this.#done]);
    this.state = 'STOPPED';
  }
}
