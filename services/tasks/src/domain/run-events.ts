import type { Message, Part, TaskArtifactUpdateEvent } from '@a2a-js/sdk';
import { AppError } from '@a2a-inbound/errors';
import { isVersionConflict, type Versioned } from '@a2a-inbound/ports';
import { withSpan } from '@a2a-inbound/telemetry';
import { eventsV1 } from '@a2a-inbound/proto';
import type { StoredStatus, TaskDoc, TaskState } from './model';
import { canTransition, endsStream, isTerminal } from './model';
import { CLAIM_STALE_MS, TOPICS, TRACER, type StoredTask, type TaskChange, TaskConcern } from './task-core';
import type { ActiveRunDoc } from './task-lookups';

/** Markers read per page of a stuck-run sweep, and pages at most per sweep. */
const SWEEP_PAGE = 1_000;
const SWEEP_MAX_PAGES = 10;
/** Markers a sweep handles between two yields to the event loop. */
const SWEEP_CHUNK = 50;

/**
 * Run-event application: the runner's events applied to the stored task exactly once (the bus consumer), and
 * the sweeper that fails runs which overran their deadline or whose runner is gone (ADR 0011).
 */
export class RunEvents extends TaskConcern {
  // ---- runner events (bus consumer) -------------------------------------------------------------

  /**
   * Applies a runner's bus message to the stored task, exactly once: one event, or a batch of a run's
   * events (ADR 0025) applied together with one compare-and-set write (on the version; each event checked
   * against the run sequence), then appended to the central event log in one step and announced to webhooks
   * in one message. Redeliveries are recognised and only repair a lost log write.
   */
  applyRunEvent(message: eventsV1.TaskEvent): Promise<void> {
    const events = message.batch.length > 0 ? message.batch : [message];
    const attributes = {
      'a2a.task_id': message.taskId,
      'a2a.run_id': message.runId,
      'a2a.run_seq': message.runSeq,
      'a2a.event': message.batch.length > 0 ? 'batch' : (message.event?.$case ?? 'none'),
      'a2a.events': events.length,
      // What the message ends with: a batch of an echo run ends with its terminal status.
      'a2a.event.last': events[events.length - 1]?.event?.$case ?? 'none',
    };
    return withSpan(TRACER, 'tasks.apply_event', attributes, () => this.#applyRunEvents(message.taskId, events));
  }

  async #applyRunEvents(taskId: string, events: eventsV1.TaskEvent[]): Promise<void> {
    const mine = events.filter((e) => e.taskId === taskId);
    if (mine.length !== events.length) {
      this.deps.log.warn({ taskId, events: events.length }, 'run event batch names other tasks: those are ignored');
    }
    if (mine.length === 0) return;
    const applied = await this.core.changeTask(taskId, (cur) => this.#batchChange(cur.doc, mine), {
      retried: true,
      attempts: 50,
      exhausted: () => new AppError('UNAVAILABLE', `could not apply event to ${taskId}`),
    });
    // The operator's view of a failed run: its reason, once (when the failure was applied, not on a redelivery).
    const saved = applied?.saved;
    if (saved?.status.state === 'failed' && applied?.change.final) {
      const reason = (saved.status.message?.parts ?? [])
        .map((p) => (p.kind === 'text' ? p.text : ''))
        .join(' ')
        .slice(0, 500);
      this.deps.log.warn({ taskId, agentId: saved.agentId, runId: saved.currentRunId, reason }, 'run failed');
    }
  }

  /**
   * The change a run's events (in run_seq order) make to the task as it is now, folded into one change that
   * emits one event per applied run event; undefined when they change nothing. Each event is checked as if
   * it came alone, so a batch that overlaps what was applied (a redelivery, or a rerun that batched its
   * events differently) applies only what is new.
   */
  async #batchChange(task: TaskDoc, events: readonly eventsV1.TaskEvent[]): Promise<TaskChange | undefined> {
    let cur = task;
    const made: TaskChange[] = [];
    let repaired = false;
    for (const event of events) {
      const next = await this.#eventChange(cur, event);
      if (next === REDELIVERED) {
        // Redelivery: make sure the log holds what the last write emitted (the first append may have been lost).
        if (!repaired && cur.lastEvent) {
          repaired = true;
          await this.core.appendLoggedBatch(cur, [...(cur.lastBatch ?? []), cur.lastEvent], { retried: true });
        }
        continue;
      }
      if (!next) continue;
      made.push(next);
      cur = next.doc;
    }
    const last = made.at(-1);
    if (!last) return undefined;
    if (made.length === 1) return last;
    return { ...last, earlier: made.slice(0, -1).map((m) => ({ seq: m.seq, eventJson: m.eventJson, final: m.final })) };
  }

  /**
   * The change one runner event makes to the task as it is now; undefined when it changes nothing,
   * REDELIVERED for the last applied event again.
   */
  async #eventChange(task: TaskDoc, event: eventsV1.TaskEvent): Promise<TaskChange | typeof REDELIVERED | undefined> {
    if (event.runId !== task.currentRunId) return undefined; // a stale run (canceled, or superseded by a reply)
    // Liveness is the run lease in the cache (ADR 0011): a heartbeat event (older runners) costs no write.
    if (event.event?.$case === 'heartbeat') return undefined;
    if (event.runSeq <= task.lastRunSeq) {
      this.deps.log.info(
        { taskId: task.id, runId: event.runId, runSeq: event.runSeq },
        'run event already applied (redelivered): dropped',
      );
      return event.runSeq === task.lastRunSeq ? REDELIVERED : undefined;
    }
    if (isTerminal(task.status.state)) {
      // Canceled, failed by its deadline, or finished: late events change nothing and never block the stream.
      this.deps.log.debug(
        { taskId: task.id, runId: event.runId, runSeq: event.runSeq, state: task.status.state },
        'run event for a finished task: ignored',
      );
      return undefined;
    }
    if (event.runSeq !== task.lastRunSeq + 1) {
      // One task's events arrive in order (keyed), so a gap is an event lost for good (dead-lettered):
      // waiting cannot fill it, and retrying would hold every other task of the partition. Apply and say so.
      this.deps.log.warn(
        { taskId: task.id, runId: event.runId, runSeq: event.runSeq, lastRunSeq: task.lastRunSeq },
        'run event after a gap: applied',
      );
    }
    const next = await this.#applyToDoc(task, event);
    if (!next) return undefined;
    next.doc.lastRunSeq = event.runSeq;
    next.doc.runSeenAtMs = this.deps.clock.now();
    return next;
  }

  /**
   * Fails tasks whose run overran its deadline, or whose run was started by a runner that is gone and that
   * no runner took over within `runStallMs` (ADR 0011). Liveness comes from run leases, never from how long
   * a run waited in the queue or how far the task-events consumer lags: a queued run is only bounded by
   * its deadline.
   */
  async sweepStuckRuns(): Promise<number> {
    const now = this.deps.clock.now();
    // A run started less than this ago can be neither overdue nor stalled.
    const quietMs = Math.min(this.deps.config.runStallMs, this.deps.config.runTimeoutMs);
    let failed = 0;
    // Pages of the oldest markers (the set of tasks that may be running, not a query on `tasks`: a scan on
    // FerretDB), while a page forgets most of what it read: a sweep keeps up with the sends of its interval instead of
    // leaving all but 500 markers for the next one (they piled up under load, and on the embedded stores,
    // which sort by reading every marker, each sweep's read grew with them).
    for (let page = 0; page < SWEEP_MAX_PAGES; page++) {
      const active = await this.c.activeRuns.find({}, { limit: SWEEP_PAGE, sort: { field: 'sinceMs', direction: 1 } });
      let forgotten = 0;
      for (let i = 0; i < active.length; i += SWEEP_CHUNK) {
        // The requests being served get the event loop between chunks: one sweep is not one long stretch.
        await new Promise<void>((resolve) => setImmediate(resolve));
        const deletes: Promise<boolean>[] = [];
        for (const marker of active.slice(i, i + SWEEP_CHUNK))
          failed += await this.#sweepMarker(marker, now, quietMs, deletes);
        for (const deleted of await Promise.all(deletes)) if (deleted) forgotten += 1;
      }
      // The next page starts again from the oldest: worth reading only when most of this one was forgotten
      // (not when it is mostly runs still working, which it would read again).
      if (active.length < SWEEP_PAGE || forgotten < active.length / 2) break;
    }
    return failed;
  }

  /**
   * One marker of `sweepStuckRuns`: forgets it (its versioned delete pushed on `deletes`, so a chunk's deletes
   * share a commit) or fails its run; resolves 1 when it failed the run.
   */
  async #sweepMarker(
    marker: Versioned<ActiveRunDoc>,
    now: number,
    quietMs: number,
    deletes: Promise<boolean>[],
  ): Promise<number> {
    // A delete that fails leaves the marker for the next sweep (and never an unhandled rejection).
    const forget = (): void =>
      void deletes.push(this.c.activeRuns.delete(marker.id, marker.version).catch(() => false));
    if (now - marker.doc.sinceMs <= quietMs) {
      // Too young to be overdue or stalled: forgotten once its task no longer works on the run it marks (a
      // reply that makes the task work again writes a new run id first, so its marker is never taken for
      // the last run's). A marker without its run (written before runs were recorded) waits to be old.
      if (marker.doc.runId === undefined) return 0;
      const v = await this.c.tasks.get(marker.id);
      if (v && v.doc.status.state !== 'working' && v.doc.currentRunId === marker.doc.runId) forget();
      return 0;
    }
    const v = await this.c.tasks.get(marker.id);
    if (!v ? now - marker.doc.sinceMs > CLAIM_STALE_MS : v.doc.status.state !== 'working') {
      // Finished, waiting for input, or a task that was never stored. Versioned: a reply that made the task
      // work again touched the marker meanwhile, and keeps it.
      forget();
      return 0;
    }
    if (!v) return 0; // its send may still be storing it
    const t = v.doc;
    const overdue = now > t.runDeadlineMs;
    if (!overdue) {
      if (now - t.runSeenAtMs <= this.deps.config.runStallMs) return 0;
      const run = await this.#runState(t, now);
      if (run === 'queued') await this.#republishIfDue(t);
      if (run !== 'lost') return 0;
    }
    const reason = overdue
      ? 'The run did not finish within its time limit.'
      : 'The agent runner stopped responding; the run was abandoned.';
    // One attempt: a task that changed since it was read is looked at again by the next sweep.
    return (await this.#failRun(v, reason, 'run failed by the sweeper')) ? 1 : 0;
  }

  /**
   * At the start of a process that owns its data alone (the durable embedded mode): every run still
   * `working` was in flight when the previous process stopped, and no runner holds it any more. Each ends
   * `failed` with a reason that says so (re-running it could repeat the agent's side effects); resolves how
   * many.
   */
  async failInterruptedRuns(): Promise<number> {
    let failed = 0;
    for (;;) {
      const active = await this.c.activeRuns.find({}, { limit: 500, sort: { field: 'sinceMs', direction: 1 } });
      let progressed = false;
      for (const marker of active) {
        const v = await this.c.tasks.get(marker.id);
        if (v?.doc.status.state === 'working') {
          const reason =
            'The service stopped while this run was in flight; the run was abandoned. Send the message again to run it.';
          if (await this.#failRun(v, reason, 'run interrupted by a restart failed')) failed += 1;
        }
        progressed = (await this.c.activeRuns.delete(marker.id)) || progressed;
      }
      if (active.length < 500 || !progressed) return failed;
    }
  }

  /** Fails the task's current run in one attempt; resolves false when the task changed meanwhile. */
  async #failRun(v: Versioned<TaskDoc>, reason: string, logMessage: string): Promise<boolean> {
    const t = v.doc;
    const status: StoredStatus = {
      state: 'failed',
      timestamp: this.core.now(),
      message: this.core.agentMessage(t, reason, 'failure'),
    };
    try {
      const done = await this.core.changeTask(t.id, () => this.core.withStatusEvent(t, status), {
        current: v,
        attempts: 1,
      });
      if (!done) return false;
      await this.deps.bus.publish({
        topic: TOPICS.runCancel,
        key: t.id,
        value: eventsV1.RunCancel.encode({ taskId: t.id, runId: t.currentRunId }).finish(),
      });
      this.deps.log.warn({ taskId: t.id, reason }, logMessage);
      return true;
    } catch (err) {
      if (!isVersionConflict(err)) throw err;
      return false;
    }
  }

  /**
   * `alive`: a runner holds the run, or it finished and its events are on their way. `queued`: no runner
   * started it yet. `lost`: a runner started it, its lease lapsed, and no runner took it over for
   * `runStallMs`.
   */
  async #runState(t: TaskDoc, now: number): Promise<'alive' | 'queued' | 'lost'> {
    const lease = await this.core.leases.get(t.currentRunId);
    if (lease) return 'alive';
    if (!(await this.core.leases.started(t.currentRunId))) return 'queued';
    const stallMs = this.deps.config.runStallMs;
    const since = await this.core.leases.lostSince(t.currentRunId, now, 4 * stallMs);
    return now - since >= stallMs ? 'lost' : 'alive';
  }

  /**
   * A run not started after `runStallMs` may never have been published (the process died between storing
   * the task and publishing its request): publish it again, at most once per `runStallMs`. A duplicate
   * request is harmless: it is keyed like the first, so it waits behind it, and the runner skips a run
   * whose lease says `done`.
   */
  async #republishIfDue(t: TaskDoc): Promise<void> {
    if (!(await this.core.leases.claimRepublish(t.currentRunId, this.deps.config.runStallMs))) return;
    const message = [...t.history].reverse().find((m) => m.role === 'user');
    if (!message) return;
    const agent = await this.deps.control.catalog.resolveAgent(t.agentId);
    await this.core.publishRun(agent, t, t.currentRunId, { message, attachments: attachmentsOf(message) });
    this.deps.log.info({ taskId: t.id, runId: t.currentRunId }, 'run not started yet: request published again');
  }

  async #applyToDoc(
    task: TaskDoc,
    event: eventsV1.TaskEvent,
  ): Promise<{ doc: StoredTask; seq: number; eventJson: string; final: boolean } | undefined> {
    const ev = event.event;
    if (!ev) return undefined;
    const owner = task.subscriptionId;
    if (ev.$case === 'status') {
      const state = ev.status.state as TaskState;
      if (!canTransition(task.status.state, state)) {
        this.deps.log.warn(
          { taskId: task.id, from: task.status.state, to: state },
          'ignored invalid transition from runner',
        );
        return undefined;
      }
      const status: StoredStatus = { state, timestamp: this.core.now() };
      if (ev.status.messageJson) {
        // Runners spill large parts themselves; compacting again bounds what an older runner sends.
        const m = await this.core.payloads.compactMessage(JSON.parse(ev.status.messageJson) as Message, owner);
        status.message = { ...m, taskId: task.id, contextId: task.contextId };
      }
      let history = task.history;
      if (status.message) history = [...history, status.message];
      if (state === 'completed') {
        const answer = task.artifacts.find((a) => a.name === 'agent_response');
        if (answer) {
          history = [
            ...history,
            {
              kind: 'message',
              role: 'agent',
              messageId: `${task.id}-answer-${task.lastSeq + 1}`,
              taskId: task.id,
              contextId: task.contextId,
              parts: answer.parts,
            },
          ];
        }
      }
      const next = this.core.withStatusEvent(
        { ...task, history: history.slice(-this.deps.config.maxHistory), state } as StoredTask,
        status,
      );
      return { ...next, final: endsStream(state) };
    }
    if (ev.$case === 'artifact') {
      const a = ev.artifact;
      const parts = await this.core.payloads.compactParts(JSON.parse(a.partsJson) as Part[], owner);
      // Copy on write: only the artifact this event changes is new (the read task is never mutated, and a
      // batch folds several events over one read without copying every artifact per event).
      const artifacts = [...task.artifacts];
      const at = artifacts.findIndex((x) => x.artifactId === a.artifactId);
      const existing = at >= 0 ? artifacts[at] : undefined;
      // A2A 0.3 §7.2.3: `append` continues an artifact sent before. A runtime's (or an upstream agent's) first
      // chunk that already says so starts the artifact here, and every client is told so: the official Python
      // and Java clients drop an `append: true` chunk of an artifact they have not seen. Decided once, on the
      // stored task, so a replay from the log and a rebuild from the task agree.
      const append = a.append && existing !== undefined;
      if (existing && append) {
        const merged = [...existing.parts];
        for (const p of parts) {
          const last = merged.at(-1);
          if (last && last.kind === 'text' && p.kind === 'text')
            merged[merged.length - 1] = await this.core.payloads.appendText(last, p, owner);
          else merged.push(p);
        }
        // Deltas add up: the stored artifact is spilled as it grows, so the task document stays small.
        artifacts[at] = { ...existing, parts: await this.core.payloads.compactParts(merged, owner) };
      } else if (existing) {
        artifacts[at] = { ...existing, parts };
      } else {
        artifacts.push({ artifactId: a.artifactId, name: a.name, parts });
      }
      const seq = task.lastSeq + 1;
      const evt: TaskArtifactUpdateEvent = {
        kind: 'artifact-update',
        taskId: task.id,
        contextId: task.contextId,
        artifact: { artifactId: a.artifactId, name: a.name, parts },
        append,
        lastChunk: a.lastChunk,
      };
      const eventJson = JSON.stringify(evt);
      const doc: StoredTask = {
        ...(task as StoredTask),
        artifacts,
        lastSeq: seq,
        lastEvent: { seq, eventJson, final: false },
        updatedAtMs: this.deps.clock.now(),
      };
      return { doc, seq, eventJson, final: false };
    }
    return undefined;
  }
}

/** What `#eventChange` answers for the last applied event seen again (a redelivery). */
const REDELIVERED = Symbol('redelivered');

/** The run attachments a stored message refers to (stored files by blob id, external files by URI). */
function attachmentsOf(message: Message): eventsV1.Attachment[] {
  const out: eventsV1.Attachment[] = [];
  for (const p of message.parts) {
    if (p.kind !== 'file' || !('uri' in p.file)) continue;
    const blobId = p.metadata?.['a2a-inbound/fileId'];
    const size = p.metadata?.['a2a-inbound/size'];
    out.push({
      blobId: typeof blobId === 'string' ? blobId : '',
      name: p.file.name ?? '',
      mimeType: p.file.mimeType ?? '',
      size: typeof size === 'number' ? size : 0,
      uri: typeof blobId === 'string' ? '' : p.file.uri,
    });
  }
  return out;
}
