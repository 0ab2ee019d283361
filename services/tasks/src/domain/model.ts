import type { Artifact, Message, Part } from '@a2a-js/sdk';

/** The five task states of the spec. `completed`, `failed` and `canceled` are terminal. */
export type TaskState = 'working' | 'input-required' | 'completed' | 'failed' | 'canceled';

export const TERMINAL_STATES: readonly TaskState[] = ['completed', 'failed', 'canceled'];

export const isTerminal = (s: TaskState): boolean => TERMINAL_STATES.includes(s);

/** A stream ends after a terminal state or when the agent waits for input. */
export const endsStream = (s: TaskState): boolean => isTerminal(s) || s === 'input-required';

/** Allowed transitions (the state table as data). */
const TRANSITIONS: Readonly<Record<TaskState, readonly TaskState[]>> = {
  working: ['working', 'input-required', 'completed', 'failed', 'canceled'],
  'input-required': ['working', 'canceled', 'failed'],
  completed: [],
  failed: [],
  canceled: [],
};

export const canTransition = (from: TaskState, to: TaskState): boolean => TRANSITIONS[from].includes(to);

export interface StoredStatus {
  state: TaskState;
  timestamp: string;
  message?: Message;
}

export interface LastEvent {
  seq: number;
  eventJson: string;
  final: boolean;
}

/** The stored task (collection `tasks`): authoritative; the event log is derived from it. */
export interface TaskDoc {
  id: string;
  subscriptionId: string;
  deploymentId: string;
  agentId: string;
  contextId: string;
  status: StoredStatus;
  artifacts: Artifact[];
  history: Message[];
  metadata?: Record<string, unknown>;
  /** The run whose events are applied; events of other runs are ignored. */
  currentRunId: string;
  /** Last applied run_seq of the current run (exactly-once application). */
  lastRunSeq: number;
  /** Last seq appended to the event log for this task. */
  lastSeq: number;
  /** The last event, re-appended on redelivery in case the log write was lost. */
  lastEvent?: LastEvent;
  /**
   * The events the last write emitted before `lastEvent` (a batch of run events, ADR 0025), in seq order;
   * re-appended with it on redelivery. Absent when the last write emitted one event.
   */
  lastBatch?: LastEvent[];
  /**
   * `lastEvent` is not in the event log yet: a send to an agent with push notifications off stores its first
   * `working` event without appending it, and the task's next write appends it with its own events (one log
   * append per run instead of two, ADR 0060). Absent once logged.
   */
  logPending?: boolean;
  /** When the current run must be finished (lease); the sweeper fails it after. */
  runDeadlineMs: number;
  /** Epoch ms of the last runner heartbeat/event. */
  runSeenAtMs: number;
  createdAtMs: number;
  updatedAtMs: number;
}

/** Idempotency record (collection `message_ids`), id = `${subscriptionId}:${messageId}`. */
export interface MessageIdDoc {
  subscriptionId: string;
  messageId: string;
  taskId: string;
  createdAtMs: number;
  /**
   * The credits this message is charged (chargeId `msg:<messageId>`), recorded in the same insert as the
   * claim: the record makes the charge once, no ledger record (ADR 0041). Absent on a claim made before that
   * (its charge is in the `credit_charges` ledger).
   */
  charged?: number;
}

/** A push config as set/create takes it (`id` optional: the task id when absent). */
export type PushConfigInput = Pick<PushConfigDoc, 'url' | 'token' | 'authentication' | 'protocolVersion'> & {
  id?: string;
};

export interface PushConfigDoc {
  taskId: string;
  subscriptionId: string;
  configId: string;
  url: string;
  token: string;
  authentication?: Record<string, unknown>;
  /** The A2A version the config was created with ("1.0"); absent for 0.3 and 0.2. Decides the push's shape. */
  protocolVersion?: string;
  createdAtMs: number;
}

export type { Artifact, Message, Part };
