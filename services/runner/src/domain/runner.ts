import type { Message } from '@a2a-js/sdk';
import type { Logger } from '@a2a-inbound/logger';
import { withSpan } from '@a2a-inbound/telemetry';
import type { Bus, Clock } from '@a2a-inbound/ports';
import { eventsV1 } from '@a2a-inbound/proto';
import type { AgentRuntime, RunContext } from './agent-runtime';

export const TOPICS = {
  runRequested: 'a2a.run.requested',
  runCancel: 'a2a.run.cancel',
  taskEvents: 'a2a.task.events',
} as const;

/** INITIALIZED → RUNNING → DRAINING → STOPPED. */
export type RunnerState = 'INITIALIZED' | 'RUNNING' | 'DRAINING' | 'STOPPED';

export interface RunnerConfig {
  heartbeatMs: number;
  shutdownGraceMs: number;
}

class RunAborted extends Error {
  constructor() {
    super('run aborted');
  }
}

/**
 * Executes runs: one RunRequested → the agent runtime → TaskEvents with run_seq 1, 2, 3… A run that is
 * redelivered (another runner crashed) starts again from scratch with the same run id; the tasks service
 * drops the events it already applied, so each is applied once.
 */
export class Runner {
  state: RunnerState = 'INITIALIZED';
  readonly #inflight = new Map<string, AbortController>();
  readonly #done = new Set<Promise<void>>();

  constructor(
    private readonly deps: {
      bus: Bus;
      clock: Clock;
      log: Logger;
      runtimes: Readonly<Record<string, AgentRuntime>>;
      config: RunnerConfig;
    },
  ) {}

  get inflight(): number {
    return this.#inflight.size;
  }

  cancel(taskId: string, runId: string): void {
    const ac = this.#inflight.get(`${taskId}/${runId}`);
    if (ac) {
      this.deps.log.info({ taskId, runId }, 'run canceled');
      ac.abort();
    }
  }

  /** Handles one run request; resolves when the run has emitted its last event (then the bus commits). */
  async handle(req: eventsV1.RunRequested): Promise<void> {
    if (this.state === 'DRAINING' || this.state === 'STOPPED') throw new Error('runner is draining');
    if (req.deadlineMs && this.deps.clock.now() > req.deadlineMs) {
      this.deps.log.warn({ taskId: req.taskId, runId: req.runId }, 'run request past its deadline: skipped');
      return;
    }
    const key = `${req.taskId}/${req.runId}`;
    const ac = new AbortController();
    this.#inflight.set(key, ac);
    const attributes = {
      'a2a.runtime': req.runtime,
      'a2a.agent_version': req.agentVersion,
      'a2a.agent_id': req.agentId,
      'a2a.task_id': req.taskId,
      'a2a.run_id': req.runId,
    };
    const run = withSpan('@a2a-inbound/runner', 'runner.run', attributes, () => this.#run(req, ac));
    this.#done.add(run);
    try {
      await run;
    } finally {
      this.#done.delete(run);
      this.#inflight.delete(key);
    }
  }

  async #run(req: eventsV1.RunRequested, ac: AbortController): Promise<void> {
    const { bus, log } = this.deps;
    let runSeq = 0;
    const emit = async (event: eventsV1.TaskEvent['event'], heartbeat = false): Promise<void> => {
      const seq = heartbeat ? 0 : ++runSeq;
      await bus.publish({
        topic: TOPICS.taskEvents,
        key: req.taskId,
        value: eventsV1.TaskEvent.encode({
          taskId: req.taskId,
          runId: req.runId,
          runSeq: seq,
          event,
          emittedAtMs: this.deps.clock.now(),
        }).finish(),
      });
    };
    const heartbeat = setInterval(() => {
      emit({ $case: 'heartbeat', heartbeat: {} }, true).catch((err: unknown) => log.warn({ err }, 'heartbeat failed'));
    }, this.deps.config.heartbeatMs);
    heartbeat.unref();
    let finished = false;
    const ctx: RunContext = {
      taskId: req.taskId,
      contextId: req.contextId,
      message: JSON.parse(req.messageJson) as Message,
      history: req.historyJson ? (JSON.parse(req.historyJson) as Message[]) : [],
      attachments: req.attachments,
      config: req.runtimeConfigJson ? (JSON.parse(req.runtimeConfigJson) as Record<string, unknown>) : {},
      signal: ac.signal,
      artifact: async (a) => {
        if (ac.signal.aborted) throw new RunAborted();
        await emit({
          $case: 'artifact',
          artifact: {
            artifactId: a.artifactId,
            name: a.name,
            partsJson: JSON.stringify(a.parts),
            append: a.append,
            lastChunk: a.lastChunk,
          },
        });
      },
      status: async (state, message) => {
        if (ac.signal.aborted) throw new RunAborted();
        if (state !== 'working') finished = true;
        await emit({ $case: 'status', status: { state, messageJson: message ? JSON.stringify(message) : '' } });
      },
      sleep: (ms) =>
        new Promise<void>((resolve, reject) => {
          if (ac.signal.aborted) return reject(new RunAborted());
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
    };
    const runtime = this.deps.runtimes[req.runtime];
    const started = this.deps.clock.now();
    log.info({ taskId: req.taskId, runId: req.runId, runtime: req.runtime, version: req.agentVersion }, 'run started');
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
        return;
      }
      await runtime(ctx);
      if (!finished) await ctx.status('completed');
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
      if (err instanceof RunAborted || ac.signal.aborted) {
        if (this.state === 'DRAINING') throw new Error('run handed back on shutdown'); // not committed: redelivered
        return; // canceled: the tasks service already recorded it
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
      });
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Stops taking runs, lets in-flight runs finish within the grace period, then aborts (hands back) the rest. */
  async drain(): Promise<void> {
    this.state = 'DRAINING';
    const grace = new Promise<void>((resolve) => setTimeout(resolve, this.deps.config.shutdownGraceMs).unref());
    await Promise.race([Promise.allSettled([...this.#done]), grace]);
    for (const ac of this.#inflight.values()) ac.abort();
    await Promise.allSettled([...this.#done]);
    this.state = 'STOPPED';
  }
}
