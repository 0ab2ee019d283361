import type { Message, Part } from '@a2a-js/sdk';
import { RUN_CANCELED, SecretUnavailableError, type RunContext } from '../../src/domain/agent-runtime';

export interface Recorded {
  ctx: RunContext;
  artifacts: { artifactId: string; name: string; parts: Part[]; append: boolean; lastChunk: boolean }[];
  statuses: { state: string; message?: Message }[];
  abort: AbortController;
  /** Cancels the run as `tasks/cancel` does. */
  cancel(): void;
  /** The concatenated text of an artifact's parts, as a client that applies `append` sees it. */
  artifactText(artifactId?: string): string;
  final(): { state: string; text: string; message?: Message } | undefined;
}

const textOf = (parts: readonly Part[]): string => parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');

/** A RunContext that records what a runtime emits (no bus): the runner's contract with a runtime. */
export function fakeRun(input: {
  text?: string;
  parts?: Part[];
  config: Record<string, unknown>;
  history?: Message[];
  taskId?: string;
  contextId?: string;
  files?: Record<string, { data: Uint8Array; mimeType: string; name?: string }>;
  secrets?: Record<string, string>;
  /** The run's checkpoint store (shared by two fakeRun calls to act as the same run executed again). */
  checkpoint?: { value?: unknown };
}): Recorded {
  const checkpoint = input.checkpoint ?? {};
  const abort = new AbortController();
  const taskId = input.taskId ?? `task-${Math.random().toString(36).slice(2)}`;
  const contextId = input.contextId ?? `ctx-${Math.random().toString(36).slice(2)}`;
  const artifacts: Recorded['artifacts'] = [];
  const statuses: Recorded['statuses'] = [];
  const ctx: RunContext = {
    taskId,
    contextId,
    message: {
      kind: 'message',
      role: 'user',
      messageId: `m-${Math.random().toString(36).slice(2)}`,
      taskId,
      contextId,
      parts: input.parts ?? [{ kind: 'text', text: input.text ?? 'hello' }],
    },
    history: input.history ?? [],
    attachments: [],
    config: input.config,
    signal: abort.signal,
    artifact: async (a) => {
      artifacts.push(structuredClone(a));
      await Promise.resolve();
    },
    status: async (state, message) => {
      statuses.push(message ? { state, message: structuredClone(message) } : { state });
      await Promise.resolve();
    },
    sleep: (ms) =>
      new Promise<void>((resolve, reject) => {
        if (abort.signal.aborted) return reject(new Error('aborted'));
        const t = setTimeout(resolve, ms);
        abort.signal.addEventListener('abort', () => {
          clearTimeout(t);
          reject(new Error('aborted'));
        });
      }),
    readFile: async (blobId) => Promise.resolve(input.files?.[blobId]),
    checkpoint: {
      load: async () => Promise.resolve(checkpoint.value === undefined ? undefined : structuredClone(checkpoint.value)),
      save: async (state) => {
        checkpoint.value = structuredClone(state);
        await Promise.resolve();
      },
    },
    // Without `secrets`, a reference resolves to itself (tests give token values where references go).
    secret: (name) => {
      if (!input.secrets) return name;
      const v = input.secrets[name];
      if (v === undefined) throw new SecretUnavailableError(name, 'it does not exist');
      return v;
    },
  };
  return {
    ctx,
    artifacts,
    statuses,
    abort,
    cancel: () => abort.abort(RUN_CANCELED),
    artifactText: (artifactId) => {
      let text = '';
      for (const a of artifacts.filter((x) => artifactId === undefined || x.artifactId === artifactId))
        text = a.append ? text + textOf(a.parts) : textOf(a.parts);
      return text;
    },
    final: () => {
      const s = statuses.filter((x) => x.state !== 'working').at(-1);
      return s
        ? {
            state: s.state,
            text: s.message ? textOf(s.message.parts) : '',
            ...(s.message ? { message: s.message } : {}),
          }
        : undefined;
    },
  };
}
