import type { Message, Part } from '@a2a-js/sdk';
import type { AgentRuntime, RunContext } from './agent-runtime';
import { agentText, textOf } from './agent-runtime';

/**
 * Demo agents: a built-in deterministic runtime, clearly named as demos, used by the seed data and the
 * tests. Real agent runtimes plug in beside them by runtime name.
 */

const CHECKPOINT_KEY = 'a2a-inbound/checkpoint';

/** Splits a text into `n` deltas (by characters, so any text works), concatenating to the original. */
export function deltas(text: string, n = 4): string[] {
  if (text.length === 0) return [''];
  const size = Math.max(1, Math.ceil(text.length / n));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

async function answer(ctx: RunContext, text: string): Promise<void> {
  const pieces = deltas(text);
  const artifactId = `${ctx.taskId}-agent_response`;
  for (let i = 0; i < pieces.length; i++) {
    await ctx.artifact({
      artifactId,
      name: 'agent_response',
      parts: [{ kind: 'text', text: pieces[i]! }],
      // A2A 0.3 §7.2.3: `append` continues a chunk sent before; the first one starts the artifact.
      append: i > 0,
      lastChunk: i === pieces.length - 1,
    });
  }
  await ctx.status('completed');
}

function describeFiles(ctx: RunContext): string {
  if (ctx.attachments.length === 0) return '';
  const list = ctx.attachments.map((a) =>
    a.uri ? `${a.name || a.uri} (${a.mimeType}, link)` : `${a.name || a.blobId} (${a.mimeType}, ${a.size} bytes)`,
  );
  return `Received ${ctx.attachments.length} file(s): ${list.join(', ')}`;
}

function previousUserText(history: readonly Message[]): string | undefined {
  const users = history.filter((m) => m.role === 'user');
  const last = users.at(-1);
  return last ? textOf(last) : undefined;
}

function describeData(message: Message): string {
  const data = message.parts.filter((p) => p.kind === 'data').map((p) => JSON.stringify(p.data));
  return data.length === 0 ? '' : `Received ${data.length} data part(s): ${data.join(', ')}`;
}

/** echo: answers the text it received (and what else came: files, data), streamed as several deltas. Knows the conversation. */
export const echoAgent: AgentRuntime = async (ctx) => {
  const text = textOf(ctx.message);
  if (/^what did i (just )?say\??$/i.test(text.trim())) {
    const prev = previousUserText(ctx.history);
    await answer(
      ctx,
      prev === undefined ? 'You have not said anything yet in this conversation.' : `You said: ${prev}`,
    );
    return;
  }
  const files = describeFiles(ctx);
  const data = describeData(ctx.message);
  if (!text && files) {
    await answer(ctx, [`Please review the attached files. ${files}`, data].filter(Boolean).join('\n'));
    return;
  }
  await answer(ctx, [text, files, data].filter(Boolean).join('\n'));
};

/** slow: works for `workMs` (config, or a data part `{ "workMs": n }`), then answers. */
export const slowAgent: AgentRuntime = async (ctx) => {
  let workMs = Number(ctx.config.workMs ?? 3000);
  for (const p of ctx.message.parts) {
    if (p.kind === 'data' && typeof p.data.workMs === 'number') workMs = p.data.workMs;
  }
  workMs = Math.min(Math.max(0, workMs), 10 * 60_000);
  // A progress update first: a stream (or a resubscribe) sees the run is under way before the answer.
  await ctx.status('working', agentText(ctx, `Working for ${workMs} ms`, 'progress'));
  // Opt-in (runtime config `earlyOutput: true`): some output before the work, as agents that report as they go.
  if (ctx.config.earlyOutput === true) {
    await ctx.artifact({
      artifactId: `${ctx.taskId}-progress`,
      name: 'progress',
      parts: [{ kind: 'text', text: 'started' }],
      append: false,
      lastChunk: true,
    });
  }
  await ctx.sleep(workMs);
  await answer(ctx, `Finished after ${workMs} ms: ${textOf(ctx.message)}`);
};

/** approval: stops at a checkpoint (input-required) and completes on the reply on the same task. */
export const approvalAgent: AgentRuntime = async (ctx) => {
  const pending = [...ctx.history]
    .reverse()
    .find((m) => m.role === 'agent' && m.taskId === ctx.taskId && m.metadata?.[CHECKPOINT_KEY] === 'approval');
  if (!pending) {
    const request = textOf(ctx.message) || 'the request';
    await ctx.status(
      'input-required',
      agentText(
        ctx,
        `Approval needed: "${request}". Reply "approve" to continue or "reject" to stop.`,
        'approval-prompt',
        {
          [CHECKPOINT_KEY]: 'approval',
          request,
        },
      ),
    );
    return;
  }
  const request = typeof pending.metadata?.request === 'string' ? pending.metadata.request : '';
  const reply = textOf(ctx.message).trim().toLowerCase();
  if (/^(approve|approved|yes|ok)\b/.test(reply)) await answer(ctx, `Approved: ${request}. Done.`);
  else await answer(ctx, `Rejected: ${request}. Nothing was done.`);
};

/** failing: every run fails with a reason (a successful JSON-RPC response whose Task is `failed`). */
export const failingAgent: AgentRuntime = async (ctx) => {
  await ctx.sleep(10);
  await ctx.status(
    'failed',
    agentText(
      ctx,
      `The demo failing agent could not complete: ${textOf(ctx.message) || 'no input'} (this agent always fails).`,
      'failure',
    ),
  );
};

/** task-graph: the demo Task Agent's graph: three steps, then a result. */
export const taskGraphAgent: AgentRuntime = async (ctx) => {
  const steps = ['collect', 'transform', 'publish'];
  for (const [i, s] of steps.entries()) {
    await ctx.sleep(20);
    await ctx.artifact({
      artifactId: `${ctx.taskId}-steps`,
      name: 'steps',
      parts: [{ kind: 'text', text: `${s}\n` }],
      append: i > 0,
      lastChunk: s === 'publish',
    });
  }
  await answer(ctx, `Graph finished: ${steps.join(' → ')}`);
};

/** A complete artifact of one chunk. */
async function artifactOf(ctx: RunContext, name: string, parts: Part[]): Promise<void> {
  await ctx.artifact({ artifactId: `${ctx.taskId}-${name}`, name, parts, append: false, lastChunk: true });
}

/**
 * tck: the behaviours the official A2A TCK's scenarios ask of a system under test, chosen by the prefix of the
 * request's `messageId` (a2aproject/a2a-tck `scenarios/*.feature`); any other message completes the task.
 * An agent of ours always answers with a Task, so "return a message" completes the task with that message.
 */
export const tckAgent: AgentRuntime = async (ctx) => {
  const id = ctx.message.messageId;
  const is = (prefix: string): boolean => id.startsWith(prefix);
  const file: Part = {
    kind: 'file',
    file: { name: 'output.txt', mimeType: 'text/plain', bytes: Buffer.from('TCK file content').toString('base64') },
  };
  const streamed = async (parts: Part[]): Promise<void> => {
    await ctx.status('working');
    await artifactOf(ctx, 'output', parts);
    await ctx.status('completed');
  };
  if (is('tck-artifact-text')) await artifactOf(ctx, 'output', [{ kind: 'text', text: 'Generated text content' }]);
  else if (is('tck-artifact-file-url'))
    await artifactOf(ctx, 'output', [
      { kind: 'file', file: { name: 'output.txt', mimeType: 'text/plain', uri: 'https://example.com/output.txt' } },
    ]);
  else if (is('tck-artifact-file')) await artifactOf(ctx, 'output', [file]);
  else if (is('tck-artifact-data'))
    await artifactOf(ctx, 'output', [{ kind: 'data', data: { key: 'value', count: 42 } }]);
  else if (is('tck-input-required')) return ctx.status('input-required', agentText(ctx, 'Input required', 'input'));
  else if (is('tck-reject-task')) return ctx.status('failed', agentText(ctx, 'rejected', 'rejected'));
  else if (is('tck-stream-002')) return ctx.status('completed');
  else if (is('tck-stream-003')) return streamed([{ kind: 'text', text: 'Stream task lifecycle' }]);
  else if (is('tck-stream-ordering-001')) return streamed([{ kind: 'text', text: 'Ordered output' }]);
  else if (is('tck-stream-artifact-text')) return streamed([{ kind: 'text', text: 'Streamed text content' }]);
  else if (is('tck-stream-artifact-file')) return streamed([file]);
  else if (is('tck-stream-artifact-chunked')) {
    await ctx.status('working');
    const chunk = { artifactId: `${ctx.taskId}-output`, name: 'output' };
    await ctx.artifact({ ...chunk, parts: [{ kind: 'text', text: 'chunk-1 ' }], append: false, lastChunk: false });
    await ctx.artifact({ ...chunk, parts: [{ kind: 'text', text: 'chunk-2' }], append: true, lastChunk: true });
    return ctx.status('completed');
  } else if (is('tck-stream-')) return streamed([{ kind: 'text', text: 'Stream hello from TCK' }]);
  else if (is('test-resubscribe-message-id')) {
    await ctx.status('working');
    await ctx.sleep(Number(ctx.config.longRunMs ?? 10_000));
    return ctx.status('completed');
  }
  const text = is('tck-message-response') ? 'Direct message response' : 'Hello from TCK';
  await ctx.status('completed', agentText(ctx, text, 'reply'));
};

export const DEMO_RUNTIMES: Readonly<Record<string, AgentRuntime>> = {
  'demo:echo': echoAgent,
  'demo:slow': slowAgent,
  'demo:approval': approvalAgent,
  'demo:failing': failingAgent,
  'demo:task-graph': taskGraphAgent,
  'demo:tck': tckAgent,
};
