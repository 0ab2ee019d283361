import type { Message, Part } from '@a2a-js/sdk';

/**
 * The abort reason of `RunContext.signal` when the task was canceled (`tasks/cancel`); any other reason is the
 * runner handing the run back (drain), to be run again elsewhere: work started elsewhere should not be undone.
 */
export const RUN_CANCELED = 'a2a-inbound/run-canceled';

/** What an agent run can do: emit output and state changes. The runner turns these into bus events. */
export interface RunContext {
  readonly taskId: string;
  readonly contextId: string;
  readonly message: Message;
  /** Earlier messages of the conversation (memory), oldest first. */
  readonly history: readonly Message[];
  readonly attachments: readonly { name: string; mimeType: string; size: number; uri: string; blobId: string }[];
  readonly config: Readonly<Record<string, unknown>>;
  readonly signal: AbortSignal;
  /** Appends to (or starts) an artifact; `append` concatenates text deltas. */
  artifact(input: {
    artifactId: string;
    name: string;
    parts: Part[];
    append: boolean;
    lastChunk: boolean;
  }): Promise<void>;
  status(state: 'working' | 'input-required' | 'completed' | 'failed', message?: Message): Promise<void>;
  /** Waits, waking early when the run is aborted (then throws). */
  sleep(ms: number): Promise<void>;
  /** A file the caller attached and the tasks service stored (`attachments[].blobId`); undefined when gone. */
  readFile(blobId: string): Promise<{ data: Uint8Array; mimeType: string; name?: string } | undefined>;
  /**
   * A secret the version's definition references, opened now (it travels sealed in the run request).
   * Throws SecretUnavailableError when it is missing or cannot be opened. Never log the value.
   */
  secret(name: string): string;
  /**
   * State a runtime saves as the run goes (the graph runtime: its completed steps), read back when the same
   * run executes again: a request redelivered after a runner crash, on whichever runner gets it. Held in the
   * shared cache (Redis in the distributed mode) under the run id; `load` is undefined for a fresh run.
   */
  readonly checkpoint: RunCheckpoint;
}

export interface RunCheckpoint {
  load(): Promise<unknown>;
  save(state: unknown): Promise<void>;
}

/** A referenced secret the run cannot use: deleted after the run was requested, or sealed with an unknown key. */
export class SecretUnavailableError extends Error {
  constructor(
    readonly secretName: string,
    why: string,
  ) {
    super(`secret "${secretName}" is not available: ${why}`);
    this.name = 'SecretUnavailableError';
  }
}

export type AgentRuntime = (ctx: RunContext) => Promise<void>;

export function textOf(message: Message): string {
  return message.parts
    .filter((p): p is Extract<Part, { kind: 'text' }> => p.kind === 'text')
    .map((p) => p.text)
    .join('\n');
}

export function agentText(
  ctx: Pick<RunContext, 'taskId' | 'contextId'>,
  text: string,
  id: string,
  metadata?: Record<string, unknown>,
): Message {
  const m: Message = {
    kind: 'message',
    role: 'agent',
    messageId: `${ctx.taskId}-${id}`,
    taskId: ctx.taskId,
    contextId: ctx.contextId,
    parts: [{ kind: 'text', text }],
  };
  if (metadata) m.metadata = metadata;
  return m;
}
