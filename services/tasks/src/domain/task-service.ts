import type { Message, Task } from '@a2a-js/sdk';
import type { eventsV1 } from '@a2a-inbound/proto';
import type { PushConfigDoc, PushConfigInput } from './model';
import { PushConfigs, type PushConfigView } from './push-configs';
import { RunEvents } from './run-events';
import { TaskCore, type CallerContext, type SendOptions, type TaskCollections, type TaskDeps } from './task-core';
import { TaskLifecycle } from './task-lifecycle';
import type { StreamItem } from './task-tails';

export * from './task-core';
export { pushConfigView, type PushConfigView } from './push-configs';

/**
 * The tasks domain's front: one object for the transport, made of the three concerns that share a
 * `TaskCore` (collections, dependencies, stream tails): the task lifecycle, run-event application, and push
 * configs. Each concern is its own class and file; this class only routes to them.
 */
export class TaskService {
  readonly lifecycle: TaskLifecycle;
  readonly runEvents: RunEvents;
  readonly pushConfigs: PushConfigs;
  readonly #core: TaskCore;

  constructor(c: TaskCollections, deps: TaskDeps) {
    this.#core = new TaskCore(c, deps);
    this.lifecycle = new TaskLifecycle(this.#core);
    this.runEvents = new RunEvents(this.#core);
    this.pushConfigs = new PushConfigs(this.#core);
  }

  /** Stops the background work of the domain (retries of run requests not yet published). */
  close(): Promise<void> {
    return this.#core.publishRetries.close();
  }

  /** Run requests this process is publishing again now (their first publish failed). */
  get retryingPublishes(): number {
    return this.#core.publishRetries.pending;
  }

  /** Streams and blocking waits this process serves now. */
  get openStreams(): number {
    return this.#core.tails.open;
  }

  send(caller: CallerContext, message: Message, options: SendOptions): Promise<Task> {
    return this.lifecycle.send(caller, message, options);
  }
  sendStream(caller: CallerContext, message: Message, options: SendOptions, signal: AbortSignal) {
    return this.lifecycle.sendStream(caller, message, options, signal);
  }
  get(caller: CallerContext, taskId: string, historyLength?: number): Promise<Task> {
    return this.lifecycle.get(caller, taskId, historyLength);
  }
  cancel(caller: CallerContext, taskId: string): Promise<Task> {
    return this.lifecycle.cancel(caller, taskId);
  }
  resubscribe(
    caller: CallerContext,
    taskId: string,
    afterSeq: number,
    signal: AbortSignal,
    accepted?: () => void,
    snapshotFirst = false,
  ): AsyncIterable<StreamItem> {
    return this.lifecycle.resubscribe(caller, taskId, afterSeq, signal, accepted, snapshotFirst);
  }
  sweepRetention(): Promise<{ tasks: number; messageIds: number; pushConfigs: number }> {
    return this.lifecycle.sweepRetention();
  }

  applyRunEvent(event: eventsV1.TaskEvent): Promise<void> {
    return this.runEvents.applyRunEvent(event);
  }
  sweepStuckRuns(): Promise<number> {
    return this.runEvents.sweepStuckRuns();
  }
  /** At the start of the only process on its data (durable embedded mode): fails the runs a stop cut short. */
  failInterruptedRuns(): Promise<number> {
    return this.runEvents.failInterruptedRuns();
  }
  /**
   * This process owns its data alone (the durable embedded mode, whose data-directory lock guarantees it) and
   * has served nothing yet: every messageId claim made before now was made by a process that is gone, so a
   * resend takes it over at once instead of after `CLAIM_STALE_MS`. Call it just before serving; resolves
   * that time (ms epoch).
   */
  ownDataAlone(): number {
    return (this.#core.earlierClaimsBeforeMs = this.#core.deps.clock.now());
  }

  setPushConfig(caller: CallerContext, taskId: string, config: PushConfigInput): Promise<PushConfigView> {
    return this.pushConfigs.setPushConfig(caller, taskId, config);
  }
  getPushConfig(caller: CallerContext, taskId: string, configId: string): Promise<PushConfigView> {
    return this.pushConfigs.getPushConfig(caller, taskId, configId);
  }
  listPushConfigs(caller: CallerContext, taskId: string): Promise<PushConfigView[]> {
    return this.pushConfigs.listPushConfigs(caller, taskId);
  }
  deletePushConfig(caller: CallerContext, taskId: string, configId: string): Promise<void> {
    return this.pushConfigs.deletePushConfig(caller, taskId, configId);
  }
  pushDelivery(
    taskId: string,
    agentId?: string,
  ): Promise<{ task: Task | undefined; enabled: boolean; targets: PushConfigDoc[] }> {
    return this.pushConfigs.pushDelivery(taskId, agentId);
  }
}
