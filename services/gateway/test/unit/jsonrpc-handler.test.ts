import { describe, expect, it } from 'vitest';
import { JsonRpcHandler, RawJson, type JsonRpcOutcome } from '../../src/protocol/jsonrpc-handler';
import { AgentOperations, type OperationContext, type TaskStreamEvent } from '../../src/protocol/operations';
import type { JsonRpcRequest } from '../../src/protocol/validate';
import { agentView, event, fakeTasks } from '../support/fake-tasks';

const ctx = (over: Partial<OperationContext> = {}): OperationContext => ({
  auth: { subscriptionId: 'sub-1', keyId: 'key-1' },
  agent: agentView(),
  version: '0.3.0',
  ...over,
});
const rpc = (method: string, params: Record<string, unknown> = {}): JsonRpcRequest => ({
  jsonrpc: '2.0',
  id: 7,
  method,
  params,
});
const message = { role: 'user', messageId: 'm-1', parts: [{ kind: 'text', text: 'hi' }] };

async function drain(outcome: JsonRpcOutcome): Promise<TaskStreamEvent[]> {
  if (outcome.kind !== 'stream') throw new Error('not a stream');
  const out: TaskStreamEvent[] = [];
  for await (const e of await outcome.open(new AbortController().signal)) out.push(e);
  return out;
}

describe('JsonRpcHandler (A2A JSON-RPC dispatch, no HTTP)', () => {
  const f = fakeTasks({
    sendMessage: () => ({ taskJson: JSON.stringify({ kind: 'task', id: 't-1', status: { state: 'completed' } }) }),
    getTask: (req) => ({
      taskJson: JSON.stringify({ id: req.taskId, status: { state: req.taskId }, artifacts: [{ artifactId: 'a' }] }),
    }),
    cancelTask: (req) => ({ taskJson: JSON.stringify({ id: req.taskId, status: { state: 'canceled' } }) }),
    deletePushConfig: () => ({}),
    sendMessageStream: (_req, s) => {
      s.write(event(0, { kind: 'task', id: 't-1' }));
      s.write(event(1, { kind: 'status-update', final: true }, true));
      s.end();
    },
    resubscribe: (_req, s) => {
      s.write(event(9, { kind: 'status-update', final: true }, true));
      s.end();
    },
  });
  const handler = new JsonRpcHandler(new AgentOperations({ tasks: f.client, resolver: async () => ['93.184.216.34'] }));

  it('message/send answers the task as the JSON text tasks answered (spliced, not parsed: ADR 0053)', async () => {
    expect(await handler.handle(rpc('message/send', { message }), ctx())).toEqual({
      kind: 'raw',
      result: new RawJson(JSON.stringify({ kind: 'task', id: 't-1', status: { state: 'completed' } })),
    });
  });

  it('message/send checks params before calling tasks (-32602)', async () => {
    const before = f.calls.length;
    await expect(
      handler.handle(rpc('message/send', { message: { ...message, role: 'agent' } }), ctx()),
    ).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    expect(f.calls.length).toBe(before);
  });

  it('message/stream answers a stream that opens with the Task snapshot; params are checked before it opens', async () => {
    const events = await drain(await handler.handle(rpc('message/stream', { message }), ctx()));
    expect(events.map((e) => e.event.kind)).toEqual(['task', 'status-update']);
    await expect(handler.handle(rpc('message/stream', {}), ctx())).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
  });

  it('tasks/resubscribe resumes after the Last-Event-ID the transport carried', async () => {
    const events = await drain(
      await handler.handle(rpc('tasks/resubscribe', { id: 't-5' }), ctx(), { lastEventId: '8' }),
    );
    expect(events.map((e) => e.seq)).toEqual([9]);
    expect(f.calls.at(-1)?.request).toMatchObject({ taskId: 't-5', afterSeq: 8 });
  });

  it('tasks/get hides the artifacts of a working task (Task table), keeps those of a finished one', async () => {
    const working = await handler.handle(rpc('tasks/get', { id: 'working', historyLength: 1 }), ctx());
    expect(working).toMatchObject({ kind: 'result', result: { artifacts: [] } });
    const done = await handler.handle(rpc('tasks/get', { id: 'completed' }), ctx());
    expect(done).toMatchObject({ kind: 'result', result: { artifacts: [{ artifactId: 'a' }] } });
    await expect(handler.handle(rpc('tasks/get', { id: 'x', historyLength: -1 }), ctx())).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
    });
  });

  it('tasks/cancel answers the canceled task; tasks/pushNotificationConfig/delete answers null', async () => {
    expect(await handler.handle(rpc('tasks/cancel', { id: 't-3' }), ctx())).toMatchObject({
      result: { id: 't-3', status: { state: 'canceled' } },
    });
    expect(await handler.handle(rpc('tasks/pushNotificationConfig/delete', { id: 't-3' }), ctx())).toEqual({
      kind: 'result',
      result: null,
    });
  });

  it('push methods answer -32003 for an agent without push before their params are read', async () => {
    const off = ctx({ agent: agentView({ pushNotificationsEnabled: false }) });
    for (const m of ['set', 'get', 'list', 'delete'])
      await expect(handler.handle(rpc(`tasks/pushNotificationConfig/${m}`, {}), off)).rejects.toMatchObject({
        code: 'PUSH_NOT_SUPPORTED',
      });
  });

  it('names the methods it does not serve: extended card, A2A 0.1 methods, unknown methods', async () => {
    await expect(handler.handle(rpc('agent/getAuthenticatedExtendedCard'), ctx())).rejects.toMatchObject({
      code: 'EXTENDED_CARD_NOT_CONFIGURED',
    });
    await expect(
      handler.handle(rpc('agent/getAuthenticatedExtendedCard'), ctx({ version: '0.2.6' })),
    ).rejects.toMatchObject({ code: 'METHOD_NOT_FOUND' });
    await expect(handler.handle(rpc('tasks/send'), ctx())).rejects.toMatchObject({ code: 'UNSUPPORTED_OPERATION' });
    await expect(handler.handle(rpc('nope/nope'), ctx())).rejects.toMatchObject({ code: 'METHOD_NOT_FOUND' });
  });
});
