import type { Message, Part, Task, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import {
  AppError,
  DuplicateKeyError,
  InvalidParamsError,
  TaskNotCancelableError,
  TaskNotFoundError,
} from '@a2a-inbound/errors';
import { cloneJson, type Versioned } from '@a2a-inbound/ports';
import { overloadedError } from '@a2a-inbound/runtime';
import { withSpan } from '@a2a-inbound/telemetry';
import { eventsV1 } from '@a2a-inbound/proto';
import type { MessageIdDoc, TaskDoc } from './model';
import { endsStream, isTerminal } from './model';
import { storePushConfig, undoStoredPushConfig, type StoredPushConfig } from './push-configs';
import { markActive, rememberInContext } from './task-lookups';
import type { StreamItem } from './task-tails';
import {
  CLAIM_STALE_MS,
  TOPICS,
  TRACER,
  type CallerContext,
  type FileUpload,
  type SendOptions,
  type StoredTask,
  TaskConcern,
} from './task-core';

/**
 * The task lifecycle: message/send and message/stream (idempotency, charge, the stored task, the run request,
 * the blocking wait and the stream), tasks/get, tasks/cancel, tasks/resubscribe, and the retention sweep.
 */
export class TaskLifecycle extends TaskConcern {
  // ---- message/send, message/stream -------------------------------------------------------------

  send(caller: CallerContext, message: Message, options: SendOptions): Promise<Task> {
    return withSpan(TRACER, 'tasks.send', { 'a2a.agent_id': caller.agentId }, async (span) => {
      // A blocking send waits on the log: admitted before anything is charged or started.
      const release = options.blocking !== false ? this.core.tails.admit() : undefined;
      try {
        const { task, startSeq, repeated } = await this.#accept(caller, message, options);
        span.setAttribute('a2a.task_id', task.id);
        return await this.#answerSend(caller, task, startSeq, repeated, options);
      } finally {
        release?.();
      }
    });
  }

  async #answerSend(
    caller: CallerContext,
    task: TaskDoc,
    startSeq: number,
    repeated: boolean,
    options: SendOptions,
  ): Promise<Task> {
    const blocking = options.blocking !== false;
    if (repeated || !blocking)
      return await this.core.toA2A(task, options.historyLength, { emptyArtifactsWhileWorking: true });
    const agent = await this.deps.control.catalog.resolveAgent(caller.agentId);
    const settled = await this.#waitForSettle(task.id, startSeq, agent.blockingBudgetMs);
    // Settled: the task as this process applied its final event, when it did (no read); else as stored.
    const current =
      (settled !== undefined ? this.core.recentTask(task.id, settled) : undefined) ??
      (await this.c.tasks.get(task.id))?.doc ??
      task;
    if (settled === undefined && !isTerminal(current.status.state)) {
      // Budget spent: the run is detached and keeps running; answer `working` with empty artifacts.
      return await this.core.toA2A(
        { ...current, status: { ...current.status, state: 'working' } },
        options.historyLength,
        {
          emptyArtifactsWhileWorking: true,
          forceEmptyArtifacts: true,
        },
      );
    }
    return await this.core.toA2A(current, options.historyLength, { emptyArtifactsWhileWorking: true });
  }

  async *sendStream(
    caller: CallerContext,
    message: Message,
    options: SendOptions,
    signal: AbortSignal,
  ): AsyncIterable<StreamItem> {
    // Admitted before anything is charged or started: a full process refuses with OVERLOADED.
    const release = this.core.tails.admit();
    try {
      yield* this.#sendStream(caller, message, options, signal);
    } finally {
      release();
    }
  }

  async *#sendStream(
    caller: CallerContext,
    message: Message,
    options: SendOptions,
    signal: AbortSignal,
  ): AsyncIterable<StreamItem> {
    const { task, startSeq, repeated } = await withSpan(
      TRACER,
      'tasks.send_stream',
      { 'a2a.agent_id': caller.agentId },
      async (span) => {
        const started = await this.#accept(caller, message, options);
        span.setAttribute('a2a.task_id', started.task.id);
        return started;
      },
    );
    // The stream starts with the Task as accepted (kind "task", as the A2A SDKs and A2A 1.0 do), then its
    // status and artifact updates. Its SSE id is the event it reflects, so Last-Event-ID resumes after it.
    const snapshot = await this.core.toA2A(task, options.historyLength, { emptyArtifactsWhileWorking: true });
    yield { seq: repeated ? 0 : startSeq, eventJson: JSON.stringify(snapshot), final: false };
    if (repeated) {
      // The message was already handled: replay what the log holds for it.
      yield* this.#replayOrSnapshot(await this.#resumeFrom(task, 0), signal);
      return;
    }
    // A first event kept in the task (ADR 0060) is the stream's next frame at once, as if read from the log.
    const pending = pendingItem(task, startSeq);
    if (pending) yield await this.core.resolveItem(task, pending);
    yield* this.#tailUntilFinal(streamRef(task), pending?.seq ?? startSeq, signal);
  }

  // ---- tasks/get, tasks/cancel, tasks/resubscribe -----------------------------------------------

  async get(caller: CallerContext, taskId: string, historyLength?: number): Promise<Task> {
    const task = await this.core.owned(caller, taskId);
    return await this.core.toA2A(task.doc, historyLength, { emptyArtifactsWhileWorking: false });
  }

  async cancel(caller: CallerContext, taskId: string): Promise<Task> {
    const cur = await this.core.owned(caller, taskId);
    const done = await this.core.changeTask(
      taskId,
      (t) => {
        this.core.assertOwned(caller, t);
        if (isTerminal(t.doc.status.state)) throw new TaskNotCancelableError(taskId, t.doc.status.state);
        return this.core.withStatusEvent(t.doc, { state: 'canceled', timestamp: this.core.now() });
      },
      { current: cur, exhausted: () => new AppError('UNAVAILABLE', 'task is changing too fast to cancel') },
    );
    if (!done) throw new TaskNotFoundError(taskId); // swept meanwhile
    // A runner that has not got the run's request yet would miss the cancel message: it checks this mark.
    await this.core.leases.cancel(done.saved.currentRunId, this.deps.config.runTimeoutMs);
    await this.deps.bus.publish({
      topic: TOPICS.runCancel,
      key: taskId,
      value: eventsV1.RunCancel.encode({ taskId, runId: done.saved.currentRunId }).finish(),
    });
    return await this.core.toA2A(done.saved, undefined, { emptyArtifactsWhileWorking: false });
  }

  async *resubscribe(
    caller: CallerContext,
    taskId: string,
    afterSeq: number,
    signal: AbortSignal,
    accepted?: () => void,
    snapshotFirst = false,
  ): AsyncIterable<StreamItem> {
    const start = await this.#resubscribeStart(caller, taskId, afterSeq, snapshotFirst);
    const release = this.core.tails.admit();
    // Accepted before the first event: a quiet task may have none for minutes.
    accepted?.();
    try {
      // `#replayOrSnapshot` inlined: every generator layer is kept by every open stream, for its life.
      if (start.final) {
        yield start.final;
        return;
      }
      if (start.snapshot) {
        yield start.snapshot;
        delete start.snapshot;
      }
      let afterSeq = start.afterSeq;
      if (start.ended) {
        // A stream resumed after its task ended: what the client missed, then (only if the task went on
        // meanwhile) the live events.
        for await (const item of this.core.tails.replayEnded(start.ended, afterSeq, signal)) {
          yield await this.core.resolveItem(start.task, item);
          if (item.final) return;
          if (item.seq > 0) afterSeq = item.seq;
        }
        delete start.ended; // not kept for the life of the live stream
      }
      if (start.pending) {
        yield await this.core.resolveItem(start.task, start.pending);
        afterSeq = start.pending.seq;
        delete start.pending;
      }
      for await (const item of this.core.tails.follow(start.task.id, afterSeq, signal))
        yield await this.core.resolveItem(start.task, item);
    } finally {
      release();
    }
  }

  /**
   * Retention: deletes finished tasks, idempotency records and push configs whose `expiresAt` passed
   * (no TTL indexes: FerretDB v1 has none). Safe on every replica at once: deletes are idempotent.
   */
  async sweepRetention(): Promise<{ tasks: number; messageIds: number; pushConfigs: number }> {
    const now = this.deps.clock.now();
    await this.c.contexts.sweepExpired(now);
    await this.c.pushConfigLists.sweepExpired(now);
    return {
      tasks: await this.c.tasks.sweepExpired(now),
      messageIds: await this.c.messageIds.sweepExpired(now),
      pushConfigs: await this.c.pushConfigs.sweepExpired(now),
    };
  }

  // ---- internals ----------------------------------------------------------------------------------

  /**
   * Claim, charge, store and request the run, counted as pending while it happens: a process with
   * `maxPendingSends` sends in that phase refuses one more with OVERLOADED at once (load shedding; a
   * saturated store would otherwise queue every send behind all the others). `options.accepted` is told once
   * the send is accepted.
   */
  async #accept(
    caller: CallerContext,
    message: Message,
    options: SendOptions,
  ): Promise<{ task: TaskDoc; startSeq: number; repeated: boolean }> {
    const release = this.core.pendingSends.admit();
    try {
      const started = await this.#startOrContinue(caller, message, options);
      options.accepted?.();
      return started;
    } finally {
      release();
    }
  }

  async #startOrContinue(
    caller: CallerContext,
    message: Message,
    options: SendOptions,
  ): Promise<{ task: TaskDoc; startSeq: number; repeated: boolean }> {
    const agent = await this.deps.control.catalog.resolveAgent(caller.agentId);
    if (agent.subscriptionId !== caller.subscriptionId) throw new AppError('NOT_FOUND', 'agent not found');
    if (!agent.servedVersion) throw new AppError('FAILED_PRECONDITION', 'the agent has no version to serve');
    if (options.pushConfig && !agent.pushNotificationsEnabled)
      throw new AppError('PUSH_NOT_SUPPORTED', 'Push notifications are not enabled for this agent');

    // Idempotency: the first send of a messageId claims it; later sends get the stored task.
    const idemId = `${caller.subscriptionId}:${message.messageId}`;
    const continuing = typeof message.taskId === 'string' && message.taskId.length > 0;
    let existingTask: Versioned<TaskDoc> | undefined;
    if (continuing) {
      existingTask = await this.c.tasks.get(message.taskId!);
      if (
        !existingTask ||
        existingTask.doc.subscriptionId !== caller.subscriptionId ||
        existingTask.doc.agentId !== caller.agentId
      ) {
        throw new TaskNotFoundError(message.taskId!);
      }
    }
    let taskId = continuing ? message.taskId! : this.deps.ids.next();
    const accounts = this.deps.control.accounts;
    const chargeId = `msg:${message.messageId}`;
    // The claim holds the charge (ADR 0041): one insert makes both the messageId and its charge once.
    const cost = await accounts.creditCost(caller.subscriptionId);
    let takeOver: MessageIdDoc | undefined;
    try {
      await this.c.messageIds.insert(
        idemId,
        {
          subscriptionId: caller.subscriptionId,
          messageId: message.messageId,
          taskId,
          createdAtMs: this.deps.clock.now(),
          charged: cost,
        },
        { expiresAt: this.deps.clock.now() + this.deps.config.retentionMs },
      );
    } catch (err) {
      if (!(err instanceof DuplicateKeyError)) throw err;
      const earlier = await this.#repeatedTask(idemId);
      if ('task' in earlier) return { task: earlier.task, startSeq: 0, repeated: true };
      if (!earlier.takeOver) return this.#startOrContinue(caller, message, options); // released: a new send
      // The first request has not stored its message after CLAIM_STALE_MS (it died, or is stuck): this one
      // takes the message over with the claim's task id, so at most one task can ever be stored for it (the
      // loser of the insert returns the winner's task), and pays what the claim's charge still lacks.
      takeOver = earlier.takeOver;
      taskId = takeOver.taskId;
    }

    try {
      if (continuing && existingTask) {
        if (existingTask.doc.status.state !== 'input-required') {
          throw new InvalidParamsError(
            `task ${taskId} is ${existingTask.doc.status.state} and cannot take a new message`,
            {
              taskId,
              state: existingTask.doc.status.state,
            },
          );
        }
        if (message.contextId && message.contextId !== existingTask.doc.contextId) {
          throw new InvalidParamsError('contextId does not match the task');
        }
      }
      // The caller gave up waiting for acceptance (it answered OVERLOADED): nothing is charged or run.
      if (options.gaveUp?.()) throw overloadedError('Server busy: the send was not accepted in time; retry shortly');
      if (!takeOver) await accounts.pay(caller.subscriptionId, chargeId, cost);
      else if (takeOver.charged !== undefined)
        await accounts.payRest(caller.subscriptionId, chargeId, takeOver.charged);
      else await accounts.charge(caller.subscriptionId, chargeId); // a claim made before ADR 0041: the ledger's
    } catch (err) {
      await this.c.messageIds.delete(idemId); // not handled: the same messageId may be sent again
      throw err;
    }

    // The loser of a race between two requests of one message (a take-over and the slow first one, each paid)
    // gives back what the message was paid beyond its charge.
    const charged = takeOver ? takeOver.charged : cost;
    const payOnce = (): Promise<void> =>
      charged === undefined ? Promise.resolve() : accounts.giveBackBeyond(caller.subscriptionId, chargeId, charged);
    const runId = this.deps.ids.next();
    const now = this.deps.clock.now();
    let stored: { message: Message; attachments: eventsV1.Attachment[] };
    let continued: { task: TaskDoc; startSeq: number } | undefined;
    let replyConfig: StoredPushConfig | undefined;
    try {
      stored = await this.#storeMessageFiles(caller, message, options.files ?? [], taskId);
      if (continuing && existingTask) {
        // A config sent with a reply joins the task before the reply's first event, so it is told of it.
        if (options.pushConfig)
          replyConfig = await storePushConfig(this.core, caller.subscriptionId, taskId, options.pushConfig);
        // A reply racing another reply to the same task may find it no longer input-required.
        continued = await this.#continueTask(existingTask, stored.message, runId);
      }
    } catch (err) {
      // A request that took this message over may have lost the race to the first one: its task has it.
      const handled = continuing ? await this.#taskWithMessage(taskId, message.messageId) : undefined;
      if (handled) {
        await payOnce();
        return { task: handled, startSeq: 0, repeated: true };
      }
      // Refused before anything ran: a JSON-RPC error is never charged and does not consume the messageId, and
      // leaves the task's push configs as they were (a handled take-over's config is its first request's too).
      await accounts.giveBack(caller.subscriptionId, chargeId);
      await this.c.messageIds.delete(idemId);
      // After the refund: a store failing here must not keep the charge nor hide the refusal the caller is owed.
      if (replyConfig)
        await undoStoredPushConfig(this.core, replyConfig).catch((undoErr: unknown) =>
          this.deps.log.warn({ err: undoErr, taskId }, 'refused reply: its push config could not be taken back'),
        );
      throw err;
    }
    let task: TaskDoc;
    let startSeq: number;
    if (continued) {
      task = continued.task;
      startSeq = continued.startSeq;
    } else {
      // A context a send starts is named after its first task: until a second task joins it (and the context's
      // list is written then, starting with this one), its list is this task alone and needs no entry.
      const contextId = message.contextId && message.contextId.length > 0 ? message.contextId : taskId;
      const userMessage: Message = { ...stored.message, taskId, contextId };
      const base: StoredTask = {
        id: taskId,
        subscriptionId: caller.subscriptionId,
        deploymentId: agent.deploymentId,
        agentId: caller.agentId,
        contextId,
        status: { state: 'working', timestamp: this.core.now() },
        state: 'working',
        artifacts: [],
        history: [userMessage],
        currentRunId: runId,
        lastRunSeq: 0,
        lastSeq: 0,
        runDeadlineMs: now + this.deps.config.runTimeoutMs,
        runSeenAtMs: now,
        createdAtMs: now,
        updatedAtMs: now,
      };
      if (message.metadata) base.metadata = message.metadata;
      const first = this.core.withStatusEvent(base, { state: 'working', timestamp: this.core.now() });
      // Push off (most agents): nobody is told of `working` before the run has news, so the event is kept in
      // the task only and logged with the run's first events, one append per run (ADR 0060). A stream
      // already has the task as accepted; push on, webhooks is told at once.
      const logNow = agent.pushNotificationsEnabled;
      if (!logNow) first.doc.logPending = true;
      let inserted = false;
      try {
        // Lookups first: a marker or list entry of a task that never appears is harmless (ADR 0015).
        await markActive(this.c.activeRuns, taskId, now, runId);
        if (contextId !== taskId)
          await rememberInContext(this.c.contexts, first.doc, now + this.deps.config.retentionMs);
        this.core.rememberTask(await this.c.tasks.insert(taskId, first.doc));
        inserted = true;
        // A config sent with the message is the task's before its first event is logged (ADR 0071).
        if (options.pushConfig) await storePushConfig(this.core, caller.subscriptionId, taskId, options.pushConfig);
        if (logNow) await this.core.appendLogged(first.doc, first.seq, first.eventJson, false);
      } catch (err) {
        // Two requests for one message (a take-over racing a slow first one) share the task id: the loser of
        // the insert answers with the winner's task, charged once, its run published once.
        if (!inserted && err instanceof DuplicateKeyError) {
          const winner = await this.c.tasks.get(taskId); // a new task's id belongs to this message's claim only
          if (winner) {
            await payOnce();
            return { task: winner.doc, startSeq: 0, repeated: true };
          }
        }
        // Refused (the store or the event log failed): nothing will run, so nothing is charged, and the
        // messageId may be sent again. A task whose first event the log refused could never stream.
        if (inserted) await this.c.tasks.delete(taskId).catch(() => false);
        await accounts.giveBack(caller.subscriptionId, chargeId);
        await this.c.messageIds.delete(idemId);
        throw err;
      }
      task = first.doc;
      startSeq = first.seq - 1;
    }
    try {
      await this.core.publishRun(agent, task, runId, stored, { newContext: !continued && !message.contextId });
    } catch (err) {
      // The task is stored and accepted: an outage of the bus (or of the store the run's memory is read from)
      // delays the run instead of refusing a charged request. Retried in the background within seconds; the
      // sweeper republishes after RUN_STALL_MS if that fails too (ADR 0011).
      this.deps.log.warn({ err, taskId: task.id, runId }, 'run request not published: retrying');
      this.core.publishRetries.retry({ taskId: task.id, runId }, () => this.#republish(task.id, runId, stored));
    }
    return { task, startSeq, repeated: false };
  }

  /** One retry of a run request: unneeded once the task no longer waits for this run, or a runner started it. */
  async #republish(
    taskId: string,
    runId: string,
    stored: { message: Message; attachments: eventsV1.Attachment[] },
  ): Promise<'published' | 'unneeded'> {
    const t = await this.c.tasks.get(taskId);
    if (!t || t.doc.currentRunId !== runId || t.doc.status.state !== 'working') return 'unneeded';
    if (await this.core.leases.started(runId).catch(() => false)) return 'unneeded';
    const agent = await this.deps.control.catalog.resolveAgent(t.doc.agentId);
    await this.core.publishRun(agent, t.doc, runId, stored);
    return 'published';
  }

  async #continueTask(
    cur: Versioned<TaskDoc>,
    reply: Message,
    runId: string,
  ): Promise<{ task: TaskDoc; startSeq: number }> {
    const done = await this.core.changeTask(
      cur.doc.id,
      async ({ doc }) => {
        if (doc.status.state !== 'input-required')
          throw new InvalidParamsError(`task ${doc.id} is ${doc.status.state} and cannot take a new message`);
        const now = this.deps.clock.now();
        await markActive(this.c.activeRuns, doc.id, now, runId);
        const base: StoredTask = {
          ...doc,
          state: 'working',
          history: [...doc.history, { ...reply, taskId: doc.id, contextId: doc.contextId }].slice(
            -this.deps.config.maxHistory,
          ),
          currentRunId: runId,
          lastRunSeq: 0,
          runDeadlineMs: now + this.deps.config.runTimeoutMs,
          runSeenAtMs: now,
        };
        return this.core.withStatusEvent(base, { state: 'working', timestamp: this.core.now() });
      },
      { current: cur, exhausted: () => new AppError('UNAVAILABLE', 'task is changing too fast') },
    );
    if (!done) throw new TaskNotFoundError(cur.doc.id);
    return { task: done.saved, startSeq: done.change.seq - 1 };
  }

  /**
   * The task of a messageId claimed before. The racing first send may still be creating it: wait a little.
   * A claim whose message is still not stored after `CLAIM_STALE_MS` (the claiming process died, or is stuck
   * behind an outage), or made before this process started when it owns its data alone (its maker is gone),
   * is taken over: the claim is refreshed by compare-and-set, so one retry at a time takes it, and the caller
   * goes on with the claim (its task id and charge). `{ takeOver: undefined }`: the claim was released
   * meanwhile (a refused first send), so the message is new.
   */
  async #repeatedTask(idemId: string): Promise<{ task: TaskDoc } | { takeOver: MessageIdDoc | undefined }> {
    for (let i = 0; i < 100; i++) {
      const idem = await this.c.messageIds.get(idemId);
      if (!idem) return { takeOver: undefined };
      const t = await this.#taskWithMessage(idem.doc.taskId, idem.doc.messageId);
      if (t) return { task: t };
      const now = this.deps.clock.now();
      const before = this.core.earlierClaimsBeforeMs;
      if (now - idem.doc.createdAtMs > CLAIM_STALE_MS || (before !== undefined && idem.doc.createdAtMs < before)) {
        try {
          await this.c.messageIds.replace(idemId, idem.version, { ...idem.doc, createdAtMs: now });
        } catch (err) {
          if (!(err instanceof AppError && err.code === 'VERSION_CONFLICT')) throw err;
          continue; // another retry took it over, or the claim changed: look again
        }
        this.deps.log.warn(
          { taskId: idem.doc.taskId },
          'messageId claimed by a send that has not stored its message: taken over with the same task id',
        );
        return { takeOver: idem.doc };
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new AppError('UNAVAILABLE', 'the first request with this messageId is still being processed');
  }

  /** The stored task `taskId` when it holds the message `messageId` (it was handled), else undefined. */
  async #taskWithMessage(taskId: string, messageId: string): Promise<TaskDoc | undefined> {
    const t = await this.c.tasks.get(taskId);
    return t && t.doc.history.some((m) => m.messageId === messageId) ? t.doc : undefined;
  }

  async #storeMessageFiles(
    caller: CallerContext,
    message: Message,
    files: FileUpload[],
    taskId: string,
  ): Promise<{ message: Message; attachments: eventsV1.Attachment[] }> {
    // Parsed JSON: the field-by-field copy (8× structuredClone's speed, the same result for JSON).
    const parts: Part[] = message.parts.map((p) => cloneJson(p));
    const attachments: eventsV1.Attachment[] = [];
    for (const f of files) {
      const part = parts[f.partIndex];
      if (!part || part.kind !== 'file')
        throw new InvalidParamsError(`file upload for part ${f.partIndex} does not match a file part`);
      // Streamed by the gateway into the blob store under the caller's subscription (the same trust as the
      // caller identity it sends), or stored here.
      const ref =
        f.blob ??
        (await this.deps.blobs.put(f.data, {
          owner: caller.subscriptionId,
          name: f.name,
          mimeType: f.mimeType,
        }));
      // The stored message references the file instead of carrying its bytes.
      parts[f.partIndex] = {
        ...part,
        file: { ...(f.name ? { name: f.name } : {}), mimeType: f.mimeType, uri: `urn:a2a-inbound:file:${ref.id}` },
        metadata: {
          ...(part.metadata ?? {}),
          'a2a-inbound/fileId': ref.id,
          'a2a-inbound/size': ref.size,
          'a2a-inbound/sha256': ref.sha256,
        },
      };
      attachments.push({ blobId: ref.id, name: f.name, mimeType: f.mimeType, size: ref.size, uri: '' });
    }
    for (const p of parts) {
      if (p.kind === 'file' && 'uri' in p.file && !p.file.uri.startsWith('urn:a2a-inbound:file:')) {
        attachments.push({
          blobId: '',
          name: p.file.name ?? '',
          mimeType: p.file.mimeType ?? '',
          size: 0,
          uri: p.file.uri,
        });
      }
    }
    this.deps.log.debug({ taskId, files: attachments.length }, 'message files stored');
    // Large parts go to the blob store too: the task document and the run request carry references.
    const compact = await this.core.payloads.compactParts(parts, caller.subscriptionId);
    return { message: { ...message, parts: compact }, attachments };
  }

  /** The seq of the event that ended the stream (the task settled), or undefined when the budget ran out. */
  async #waitForSettle(taskId: string, afterSeq: number, budgetMs: number): Promise<number | undefined> {
    // Every write is this process's: the write that settles the task wakes the wait (ADR 0053).
    if (this.deps.localSettles)
      return this.core.settles.wait(
        taskId,
        afterSeq,
        budgetMs,
        () => this.core.latestTask(taskId),
        this.deps.config.streamStoreCheckMs,
      );
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), budgetMs);
    try {
      for await (const item of this.core.tails.follow(taskId, afterSeq, ac.signal)) {
        if (item.final) return item.seq;
      }
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  async *#tailUntilFinal(task: StreamRef, afterSeq: number, signal: AbortSignal): AsyncIterable<StreamItem> {
    // Whether from the log or rebuilt from the stored task, large parts travel as references: resolved here.
    for await (const item of this.core.tails.follow(task.id, afterSeq, signal))
      yield await this.core.resolveItem(task, item);
  }

  /** Replays events after the resume point then goes live; a finished task gives one final status event. */
  async *#replayOrSnapshot(start: ResumePoint, signal: AbortSignal): AsyncIterable<StreamItem> {
    if (start.final) {
      yield start.final;
      return;
    }
    if (start.pending) yield await this.core.resolveItem(start.task, start.pending);
    yield* this.#tailUntilFinal(start.task, start.pending?.seq ?? start.afterSeq, signal);
  }

  /** The caller's task and where its resubscription starts (outside the generator: see `#resumeFrom`). */
  async #resubscribeStart(
    caller: CallerContext,
    taskId: string,
    afterSeq: number,
    snapshotFirst: boolean,
  ): Promise<ResumePoint> {
    const owned = (await this.core.owned(caller, taskId)).doc;
    if (!snapshotFirst || afterSeq > 0) return this.#resumeFrom(owned, afterSeq);
    // A2A 1.0 SubscribeToTask (spec 3.1.6): "a `Task` object as the first event in the stream, representing the
    // current state of the task at the time of subscription", then what follows it, until a state that ends a
    // stream comes (an input-required task is followed past the state it waits in). A finished task: as before.
    const current = (await this.c.tasks.get(taskId))?.doc ?? owned;
    if (isTerminal(current.status.state)) return this.#resumeFrom(current, 0);
    const task = await this.core.toA2A(current, undefined, { emptyArtifactsWhileWorking: false });
    return {
      task: streamRef(current),
      afterSeq: current.lastSeq,
      snapshot: { seq: current.lastSeq, eventJson: JSON.stringify(task), final: false },
    };
  }

  /**
   * Where a replay starts, from the stored task. Read here, not in the stream's generators: a generator keeps
   * what its frame held for as long as the stream stays open, and an idle stream needs only the task's id.
   */
  async #resumeFrom(task: TaskDoc, afterSeq: number): Promise<ResumePoint> {
    const current = (await this.c.tasks.get(task.id))?.doc ?? task;
    if (endsStream(current.status.state)) {
      // A stream resumed by its Last-Event-ID gets every event it missed, even though the task ended meanwhile.
      if (afterSeq > 0 && afterSeq < current.lastSeq) return { task: streamRef(current), afterSeq, ended: current };
      // State table: resubscribing to a finished task gives a single event with `final: true` (without a
      // Last-Event-ID, or one at or past its last event: tailing after that would wait forever).
      const final = await this.core.resolveItem(current, this.#finalSnapshot(current));
      return { task: streamRef(current), afterSeq, final };
    }
    // A Last-Event-ID beyond what exists (a client's bug, or another task's id) would skip the final event
    // and wait forever: nobody can have seen more than the task's last event.
    const from = Math.min(afterSeq, current.lastSeq);
    const pending = pendingItem(current, from);
    return { task: streamRef(current), afterSeq: from, ...(pending ? { pending } : {}) };
  }

  #finalSnapshot(task: TaskDoc): StreamItem {
    const evt: TaskStatusUpdateEvent = {
      kind: 'status-update',
      taskId: task.id,
      contextId: task.contextId,
      status: task.status,
      final: true,
    };
    return { seq: task.lastSeq, eventJson: JSON.stringify(evt), final: true };
  }
}

/** What a stream keeps of its task while it follows it: the id, and the owner its large parts are read as. */
type StreamRef = Pick<TaskDoc, 'id' | 'subscriptionId'>;

/**
 * Where a replay starts: after `afterSeq`; only `final` (the task has ended and the client missed nothing, or
 * named no event); or `ended`, the task that ended after the client's last event (its missed events first).
 */
interface ResumePoint {
  task: StreamRef;
  afterSeq: number;
  final?: StreamItem;
  ended?: TaskDoc;
  /** The event after `afterSeq`, kept in the task until its next write logs it (ADR 0060): yielded first. */
  pending?: StreamItem;
  /** 1.0 SubscribeToTask: the Task as it is at `afterSeq` (its last event), yielded first. */
  snapshot?: StreamItem;
}

/** The task's event `afterSeq + 1` when the task keeps it unlogged (ADR 0060), as a stream item. */
function pendingItem(task: TaskDoc, afterSeq: number): StreamItem | undefined {
  const e = task.logPending ? task.lastEvent : undefined;
  return e && e.seq === afterSeq + 1 ? { seq: e.seq, eventJson: e.eventJson, final: e.final } : undefined;
}

function streamRef(task: TaskDoc): StreamRef {
  return { id: task.id, subscriptionId: task.subscriptionId };
}
