import { describe, expect, it } from 'vitest';
import { AppError } from '@a2a-inbound/errors';
import type { Resolver } from '@a2a-inbound/runtime';
import {
  afterSeqOf,
  AGENT_DEFAULTS,
  AgentOperations,
  CONVERSATION_LIMITS,
  DEADLINES,
  type OperationContext,
} from '../../src/protocol/operations';
import { validateSendParams } from '../../src/protocol/validate';
import { agentView, event, fakeTasks } from '../support/fake-tasks';

const publicResolver: Resolver = async () => ['93.184.216.34'];
const privateResolver: Resolver = async () => ['10.0.0.7'];

const ctx = (over: Partial<OperationContext> = {}): OperationContext => ({
  auth: { subscriptionId: 'sub-1', keyId: 'key-1' },
  agent: agentView(),
  version: '0.3.0',
  ...over,
});

const send = (parts: unknown[], configuration: Record<string, unknown> = {}) =>
  validateSendParams({ message: { role: 'user', messageId: 'm-1', parts }, configuration });

const task = (id: string, state = 'completed', extra: Record<string, unknown> = {}) =>
  JSON.stringify({ kind: 'task', id, contextId: 'ctx-1', status: { state }, ...extra });

/** Deadlines are measured from the call; a few ms pass before the fake reads them. */
const near = (ms: number) => expect.closeTo(ms, -2);

describe('AgentOperations (the gateway request handler, no HTTP)', () => {
  it('send: the caller identity, the message without bytes, the files beside it, the budget + grace deadline', async () => {
    const f = fakeTasks({ sendMessage: () => ({ taskJson: task('t-1') }) });
    const ops = new AgentOperations({ tasks: f.client, resolver: publicResolver });
    const bytes = Buffer.from('hello file').toString('base64');
    const v = send(
      [
        { kind: 'text', text: 'hi' },
        { kind: 'file', file: { name: 'a.txt', mimeType: 'text/plain', bytes } },
      ],
      { blocking: true, historyLength: 3 },
    );
    const out = await ops.send(ctx({ version: '0.2.6' }), v);
    expect(out).toMatchObject({ id: 't-1', status: { state: 'completed' } });
    const [c] = f.calls;
    expect(c?.method).toBe('sendMessage');
    expect(c?.request.caller).toEqual({
      subscriptionId: 'sub-1',
      deploymentId: 'dep-1',
      agentId: 'agent-1',
      keyId: 'key-1',
      protocolVersion: '0.2.6',
    });
    expect(c?.request.blocking).toBe(true);
    expect(c?.request.historyLength).toBe(3);
    expect(c?.request.files).toEqual([
      {
        partIndex: 1,
        name: 'a.txt',
        mimeType: 'text/plain',
        data: Buffer.from('hello file'),
        blobId: '',
        size: 0,
        sha256: '',
      },
    ]);
    expect(JSON.stringify(JSON.parse(c?.request.messageJson))).not.toContain(bytes);
    expect(c?.deadlineMs).toEqual(near(5_000 + DEADLINES.sendGraceMs));
  });

  it('send: an agent without a blocking budget gets the default budget in its deadline', async () => {
    const f = fakeTasks({ sendMessage: () => ({ taskJson: task('t-1') }) });
    const ops = new AgentOperations({ tasks: f.client, resolver: publicResolver });
    await ops.send(ctx({ agent: agentView({ blockingBudgetMs: 0 }) }), send([{ kind: 'text', text: 'x' }]));
    expect(f.calls[0]?.deadlineMs).toEqual(near(AGENT_DEFAULTS.blockingBudgetMs + DEADLINES.sendGraceMs));
  });

  it('send and stream refuse a file URI that resolves to a private address, before tasks is called', async () => {
    const f = fakeTasks({ sendMessage: () => ({ taskJson: task('t-1') }) });
    const ops = new AgentOperations({ tasks: f.client, resolver: privateResolver });
    const v = send([{ kind: 'file', file: { uri: 'https://files.example.com/a.pdf', mimeType: 'application/pdf' } }]);
    await expect(ops.send(ctx(), v)).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    await expect(ops.stream(ctx(), v, new AbortController().signal)).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
    });
    await expect(ops.runStream(ctx(), () => v, new AbortController().signal)).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
    });
    expect(f.calls).toEqual([]);
    // The same URI on a public address is sent on, as a reference (nothing is downloaded).
    const publicOps = new AgentOperations({ tasks: f.client, resolver: publicResolver });
    await publicOps.send(ctx(), v);
    expect(JSON.parse(f.calls[0]?.request.messageJson).parts[0].file.uri).toBe('https://files.example.com/a.pdf');
  });

  it('stream: an async iterable of parsed events with their sequence numbers, ending after the final one', async () => {
    const f = fakeTasks({
      sendMessageStream: (_req, s) => {
        s.write(event(0, { kind: 'task', id: 't-1' }));
        s.write(event(2, { kind: 'status-update', taskId: 't-1', status: { state: 'working' } }));
        s.write(event(3, { kind: 'status-update', taskId: 't-1', status: { state: 'completed' }, final: true }, true));
        s.end();
      },
    });
    const ops = new AgentOperations({ tasks: f.client, resolver: publicResolver });
    const got = [];
    for await (const e of await ops.stream(ctx(), send([{ kind: 'text', text: 'x' }]), new AbortController().signal))
      got.push(e);
    expect(got.map((e) => [e.seq, e.event.kind, e.final])).toEqual([
      [0, 'task', false],
      [2, 'status-update', false],
      [3, 'status-update', true],
    ]);
    expect(f.calls[0]?.request.caller.agentId).toBe('agent-1');
  });

  it('resubscribe: resumes after the given sequence number; aborting the signal cancels the gRPC stream', async () => {
    const f = fakeTasks({ resubscribe: (_req, s) => s.write(event(5, { kind: 'status-update', taskId: 't-9' })) });
    const ops = new AgentOperations({ tasks: f.client });
    const ac = new AbortController();
    const it = ops.resubscribe(ctx(), 't-9', 4, ac.signal)[Symbol.asyncIterator]();
    const first = await it.next();
    expect(first.value).toMatchObject({ seq: 5, event: { taskId: 't-9' } });
    expect(f.calls[0]?.request).toMatchObject({ taskId: 't-9', afterSeq: 4 });
    ac.abort();
    expect(f.streams[0]?.cancelled).toBe(true);
    expect(await it.next()).toEqual({ done: true, value: undefined });
  });

  it('a stream that breaks after it opened throws the AppError of the gRPC status', async () => {
    const f = fakeTasks({
      resubscribe: (_req, s) => {
        s.write(event(1, { kind: 'status-update' }));
        setTimeout(() => s.fail(new AppError('UNAVAILABLE', 'event log down')), 5);
      },
    });
    const ops = new AgentOperations({ tasks: f.client });
    const it = ops.resubscribe(ctx(), 't-1', 0, new AbortController().signal)[Symbol.asyncIterator]();
    await it.next();
    await expect(it.next()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('get and cancel: unary calls with the unary deadline; tasks errors keep their code', async () => {
    const f = fakeTasks({
      getTask: (req) => {
        if (req.taskId === 'missing') throw new AppError('TASK_NOT_FOUND', 'Task not found');
        return { taskJson: task(req.taskId, 'working', { artifacts: [{ artifactId: 'a' }] }) };
      },
      cancelTask: (req) => ({ taskJson: task(req.taskId, 'canceled') }),
    });
    const ops = new AgentOperations({ tasks: f.client });
    // The operation returns the task as stored; hiding a working task's artifacts is A2A's rule (JsonRpcHandler).
    expect(await ops.get(ctx(), 't-1', 2)).toMatchObject({ id: 't-1', artifacts: [{ artifactId: 'a' }] });
    expect(f.calls[0]?.request).toMatchObject({ taskId: 't-1', historyLength: 2 });
    expect(f.calls[0]?.deadlineMs).toEqual(near(DEADLINES.unaryMs));
    await expect(ops.get(ctx(), 'missing')).rejects.toMatchObject({ code: 'TASK_NOT_FOUND' });
    expect(await ops.cancel(ctx(), 't-2')).toMatchObject({ id: 't-2', status: { state: 'canceled' } });
    expect(f.calls[2]?.deadlineMs).toEqual(near(DEADLINES.unaryMs));
  });

  it('push configs: -32003 when push is off; the config is checked; the token is never returned', async () => {
    const stored = { id: 'c-1', url: 'https://hooks.example.com/x', token: 'secret-token', authenticationJson: '' };
    const f = fakeTasks({
      setPushConfig: (req) => ({ taskId: req.taskId, config: { ...req.config, id: 'c-1' } }),
      getPushConfig: (req) => ({ taskId: req.taskId, config: stored }),
      listPushConfigs: (req) => ({ configs: [{ taskId: req.taskId, config: stored }] }),
      deletePushConfig: () => ({}),
    });
    const ops = new AgentOperations({ tasks: f.client, resolver: publicResolver });
    const off = ctx({ agent: agentView({ pushNotificationsEnabled: false }) });
    await expect(ops.setPushConfig(off, 't-1', {})).rejects.toMatchObject({ code: 'PUSH_NOT_SUPPORTED' });
    await expect(ops.listPushConfigs(off, 't-1')).rejects.toMatchObject({ code: 'PUSH_NOT_SUPPORTED' });
    await expect(ops.setPushConfig(ctx(), 't-1', { url: 'https://hooks.example.com/x' })).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
    });
    const privateOps = new AgentOperations({ tasks: f.client, resolver: privateResolver });
    await expect(
      privateOps.setPushConfig(ctx(), 't-1', { url: 'https://hooks.example.com/x', token: 'secret-token' }),
    ).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    expect(f.calls).toEqual([]);
    const set = await ops.setPushConfig(ctx(), 't-1', {
      url: 'https://hooks.example.com/x',
      token: 'secret-token',
      authentication: { schemes: ['Bearer'] },
    });
    expect(set).toEqual({
      taskId: 't-1',
      pushNotificationConfig: {
        id: 'c-1',
        url: 'https://hooks.example.com/x',
        authentication: { schemes: ['Bearer'] },
      },
    });
    expect(f.calls[0]?.request.config).toMatchObject({
      token: 'secret-token',
      authenticationJson: '{"schemes":["Bearer"]}',
    });
    expect(JSON.stringify(await ops.getPushConfig(ctx(), 't-1', 'c-1'))).not.toContain('secret-token');
    expect(JSON.stringify(await ops.listPushConfigs(ctx(), 't-1'))).not.toContain('secret-token');
    await ops.deletePushConfig(ctx(), 't-1', 'c-1');
    expect(f.calls.map((c) => c.method)).toEqual([
      'setPushConfig',
      'getPushConfig',
      'listPushConfigs',
      'deletePushConfig',
    ]);
  });

  it('run and runStream refuse a Task Agent before the request is built', async () => {
    const f = fakeTasks({});
    const ops = new AgentOperations({ tasks: f.client });
    const taskAgent = ctx({ agent: agentView({ type: 'Task Agent' }) });
    let built = false;
    const build = () => {
      built = true;
      return send([{ kind: 'text', text: 'x' }]);
    };
    await expect(ops.run(taskAgent, build)).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
    await expect(ops.runStream(taskAgent, build, new AbortController().signal)).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
    });
    expect(built).toBe(false);
    expect(f.calls).toEqual([]);
  });

  it('listRuns pages by creation time; conversation reads runs oldest first with their histories', async () => {
    const summaries = [
      { taskId: 't-2', contextId: 'c', state: 'completed', createdAtMs: 2, updatedAtMs: 2 },
      { taskId: 't-1', contextId: 'c', state: 'completed', createdAtMs: 1, updatedAtMs: 1 },
    ];
    const f = fakeTasks({
      listTasks: (req) => ({ tasks: req.contextId === 'none' ? [] : summaries }),
      getTask: (req) => ({
        taskJson: task(req.taskId, 'completed', {
          history: [
            { role: 'user', messageId: `${req.taskId}-u`, parts: [] },
            { role: 'agent', messageId: `${req.taskId}-a`, parts: [] },
          ],
        }),
      }),
    });
    const ops = new AgentOperations({ tasks: f.client });
    expect(await ops.listRuns(ctx(), { limit: 2, createdBeforeMs: 10 })).toEqual(summaries);
    expect(f.calls[0]?.request).toMatchObject({ limit: 2, createdBeforeMs: 10, contextId: '' });
    const conv = await ops.conversation(ctx(), 'c');
    expect(conv.runs).toBe(2);
    expect(conv.messages.map((m) => [m.runId, m.message.messageId])).toEqual([
      ['t-1', 't-1-u'],
      ['t-1', 't-1-a'],
      ['t-2', 't-2-u'],
      ['t-2', 't-2-a'],
    ]);
    expect(f.calls[1]?.request).toMatchObject({ limit: CONVERSATION_LIMITS.runs, contextId: 'c' });
    expect(f.calls[2]?.request.historyLength).toBe(CONVERSATION_LIMITS.historyLength);
    await expect(ops.conversation(ctx(), 'none')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('afterSeqOf reads Last-Event-ID: digits only, anything else starts from the beginning', () => {
    expect(afterSeqOf(' 42 ')).toBe(42);
    expect(afterSeqOf('4x')).toBe(0);
    expect(afterSeqOf('-1')).toBe(0);
    expect(afterSeqOf(undefined)).toBe(0);
    expect(afterSeqOf(['7'])).toBe(0);
  });
});
