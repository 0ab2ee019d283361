import type { Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, cardUrl, eventually, rpc, sse, textMessage, uniqueId, type Sut } from '@a2a-inbound/testing';

const ECHO = 'demo-echo';
const SLOW = 'demo-slow';
const APPROVAL = 'demo-approval';
const FAILING = 'demo-failing';
const TASK_AGENT = 'demo-task-agent';

function resultTask(r: unknown): Task {
  const res = r as { result?: Task; error?: unknown };
  if (!res.result) throw new Error(`expected a result, got ${JSON.stringify(r)}`);
  return res.result;
}

/**
 * The end-to-end suite of the foundation: the A2A round trip through a real A2A client
 * (@a2a-js/sdk 0.3.14) and raw HTTP. Every layout (embedded, split, distributed) runs it unchanged.
 */
export function describeA2aEndToEnd(layout: string, start: () => Promise<Sut>): void {
  describe(`A2A end to end (${layout})`, () => {
    let sut: Sut;
    let base: string;
    const endpoint = (agent: string, v = ''): string => `${base}/agents/${agent}/a2a${v}`;

    beforeAll(async () => {
      sut = await start();
      base = sut.baseUrl;
    }, 180_000);
    afterAll(async () => {
      await sut?.close();
    }, 60_000);

    it('serves the 0.3.0 agent card without a key, with the fields of the Agent card table', async () => {
      const res = await fetch(cardUrl(base, ECHO));
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('etag')).toBeTruthy();
      const card: any = await res.json();
      expect(card).toMatchObject({
        protocolVersion: '0.3.0',
        name: expect.any(String),
        description: expect.any(String),
        url: `${base}/agents/${ECHO}/a2a/v0.3`,
        preferredTransport: 'JSONRPC',
        version: '1.0.0',
        capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: expect.any(Boolean) },
        securitySchemes: { apiKey: { type: 'http', scheme: 'bearer' } },
        security: [{ apiKey: [] }],
        provider: { organization: expect.any(String), url: expect.any(String) },
      });
      expect(card.defaultInputModes).toEqual(expect.arrayContaining(['text/plain', 'application/json']));
      expect(card.defaultOutputModes).toEqual(
        expect.arrayContaining(['text/plain', 'text/markdown', 'application/json']),
      );
      expect(card.skills[0]).toEqual({
        id: expect.any(String),
        name: expect.any(String),
        description: expect.any(String),
        tags: expect.any(Array),
        examples: expect.any(Array),
      });
      const again = await fetch(cardUrl(base, ECHO), { headers: { 'If-None-Match': res.headers.get('etag')! } });
      expect(again.status).toBe(304);
    });

    it('message/send through @a2a-js/sdk returns a completed Task with the agent_response artifact', async () => {
      const client = await a2aClient(base, ECHO, sut.a2aKey);
      const res = await client.sendMessage({ message: textMessage('hello from the sdk') as never });
      const task = resultTask(res);
      expect(task.kind).toBe('task');
      expect(task.status.state).toBe('completed');
      expect(task.status.timestamp).toBeTruthy();
      const answer = task.artifacts?.find((a) => a.name === 'agent_response');
      expect(answer?.parts).toEqual([{ kind: 'text', text: 'hello from the sdk' }]);
      expect(task.history).toBeUndefined();

      const got = resultTask(await client.getTask({ id: task.id }));
      expect(got.id).toBe(task.id);
      expect(got.status.state).toBe('completed');
      expect(got.artifacts?.[0]?.parts).toEqual([{ kind: 'text', text: 'hello from the sdk' }]);
      const withHistory = resultTask(await client.getTask({ id: task.id, historyLength: 10 }));
      expect(withHistory.history?.[0]?.parts).toEqual([{ kind: 'text', text: 'hello from the sdk' }]);
    });

    it('message/stream through @a2a-js/sdk streams the Task, working, text deltas with append, and a final frame', async () => {
      const client = await a2aClient(base, ECHO, sut.a2aKey);
      const received: unknown[] = [];
      for await (const e of client.sendMessageStream({ message: textMessage('streamed answer text') as never }))
        received.push(e);
      // The Task as accepted comes first, then its updates.
      expect(received[0]).toMatchObject({ kind: 'task', status: { state: 'working' } });
      const events = received.slice(1) as (TaskStatusUpdateEvent | TaskArtifactUpdateEvent)[];
      const first = events[0] as TaskStatusUpdateEvent;
      expect(first.kind).toBe('status-update');
      expect(first.status.state).toBe('working');
      expect(first.final).toBe(false);
      const deltas = events.filter((e): e is TaskArtifactUpdateEvent => e.kind === 'artifact-update');
      expect(deltas.length).toBeGreaterThan(1);
      // The first chunk starts the artifact (A2A 0.3 §7.2.3: `append` continues one sent before); the rest append.
      expect(deltas.map((d) => d.append === true)).toEqual(deltas.map((_, i) => i > 0));
      expect(deltas.every((d) => d.artifact.name === 'agent_response')).toBe(true);
      const text = deltas.map((d) => d.artifact.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('')).join('');
      expect(text).toBe('streamed answer text');
      const last = events.at(-1) as TaskStatusUpdateEvent;
      expect(last.kind).toBe('status-update');
      expect(last.final).toBe(true);
      expect(last.status.state).toBe('completed');
    });

    it('message/stream over raw HTTP answers text/event-stream frames with ids and JSON-RPC envelopes', async () => {
      const r = await sse(
        endpoint(ECHO),
        { jsonrpc: '2.0', id: 'raw-1', method: 'message/stream', params: { message: textMessage('raw sse') } },
        { key: sut.a2aKey },
      );
      expect(r.status).toBe(200);
      expect(r.contentType).toMatch(/^text\/event-stream/);
      expect(r.frames.every((f) => f.data.jsonrpc === '2.0' && f.data.id === 'raw-1')).toBe(true);
      // The Task snapshot (no id: the state before event 1), then the events in order.
      expect(r.frames[0]!.id).toBeUndefined();
      expect(r.frames[0]!.data.result.kind).toBe('task');
      const ids = r.frames.slice(1).map((f) => f.id);
      expect(ids).toEqual([...ids].sort((a, b) => a! - b!));
      expect(r.frames.at(-1)!.data.result.final).toBe(true);
    });

    it('refuses a missing or wrong key with 401 and a JSON-RPC-shaped body', async () => {
      const body = { jsonrpc: '2.0', id: 7, method: 'message/send', params: { message: textMessage('x') } };
      const missing = await rpc(endpoint(ECHO), body);
      expect(missing.status).toBe(401);
      expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(missing.body).toMatchObject({
        jsonrpc: '2.0',
        error: { code: expect.any(Number), message: expect.any(String) },
      });
      const wrong = await rpc(endpoint(ECHO), body, { key: 'a2a_not-a-real-key' });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.data.code).toBe('UNAUTHENTICATED');
      const wrongScope = await rpc(endpoint(ECHO), body, { key: sut.invokeKey });
      expect(wrongScope.status).toBe(403);
      expect(wrongScope.body.error.data.code).toBe('PERMISSION_DENIED');
    });

    it('approval: input-required with the prompt, then a reply on the same task completes it', async () => {
      const first = await rpc(
        endpoint(APPROVAL),
        { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: textMessage('deploy v2') } },
        { key: sut.a2aKey },
      );
      const task = resultTask(first.body);
      expect(task.status.state).toBe('input-required');
      const prompt = task.status.message?.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
      expect(prompt).toContain('deploy v2');
      const reply = await rpc(
        endpoint(APPROVAL),
        {
          jsonrpc: '2.0',
          id: 2,
          method: 'message/send',
          params: { message: textMessage('approve', { taskId: task.id, contextId: task.contextId }) },
        },
        { key: sut.a2aKey },
      );
      const done = resultTask(reply.body);
      expect(done.id).toBe(task.id);
      expect(done.status.state).toBe('completed');
      expect(done.artifacts?.[0]?.parts[0]).toEqual({ kind: 'text', text: 'Approved: deploy v2. Done.' });
    });

    it('failing: a successful JSON-RPC response whose Task is failed, with the reason in status.message', async () => {
      const r = await rpc(
        endpoint(FAILING),
        { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: textMessage('try') } },
        { key: sut.a2aKey },
      );
      expect(r.status).toBe(200);
      expect(r.body.error).toBeUndefined();
      const task = resultTask(r.body);
      expect(task.status.state).toBe('failed');
      expect(task.status.message?.parts[0]).toMatchObject({
        kind: 'text',
        text: expect.stringContaining('could not complete'),
      });
    });

    it('blocking: false returns a working task that tasks/get later shows completed', async () => {
      const r = await rpc(
        endpoint(SLOW),
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: {
            message: {
              ...textMessage('slowly'),
              parts: [
                { kind: 'text', text: 'slowly' },
                { kind: 'data', data: { workMs: 300 } },
              ],
            },
            configuration: { blocking: false },
          },
        },
        { key: sut.a2aKey },
      );
      const task = resultTask(r.body);
      expect(task.status.state).toBe('working');
      expect(task.artifacts).toEqual([]);
      const done = await eventually(async () => {
        const g = await rpc(
          endpoint(SLOW),
          { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: task.id } },
          { key: sut.a2aKey },
        );
        return g.body.result?.status?.state === 'completed' ? (g.body.result as Task) : undefined;
      });
      expect(done.artifacts?.[0]?.parts[0]).toEqual({ kind: 'text', text: 'Finished after 300 ms: slowly' });
    });

    it('idempotency: the same messageId returns the stored task and does not run the agent again', async () => {
      const message = textMessage('only once');
      const a = resultTask(
        (
          await rpc(
            endpoint(ECHO),
            { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message } },
            { key: sut.a2aKey },
          )
        ).body,
      );
      const b = resultTask(
        (
          await rpc(
            endpoint(ECHO),
            { jsonrpc: '2.0', id: 2, method: 'message/send', params: { message } },
            { key: sut.a2aKey },
          )
        ).body,
      );
      expect(b.id).toBe(a.id);
      expect(b.status.state).toBe('completed');
    });

    it('tasks/resubscribe to a finished task gives one event with final: true', async () => {
      const a = resultTask(
        (
          await rpc(
            endpoint(ECHO),
            { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: textMessage('done already') } },
            { key: sut.a2aKey },
          )
        ).body,
      );
      const r = await sse(
        endpoint(ECHO),
        { jsonrpc: '2.0', id: 9, method: 'tasks/resubscribe', params: { id: a.id } },
        { key: sut.a2aKey },
      );
      expect(r.frames).toHaveLength(1);
      expect(r.frames[0]!.data.result).toMatchObject({
        kind: 'status-update',
        taskId: a.id,
        final: true,
        status: { state: 'completed' },
      });
    });

    it('tasks/cancel of a finished task gives -32002; of a working one, canceled', async () => {
      const a = resultTask(
        (
          await rpc(
            endpoint(ECHO),
            { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: textMessage('finish') } },
            { key: sut.a2aKey },
          )
        ).body,
      );
      const c = await rpc(
        endpoint(ECHO),
        { jsonrpc: '2.0', id: 2, method: 'tasks/cancel', params: { id: a.id } },
        { key: sut.a2aKey },
      );
      expect(c.status).toBe(200);
      expect(c.body.error.code).toBe(-32002);
      const slow = resultTask(
        (
          await rpc(
            endpoint(SLOW),
            {
              jsonrpc: '2.0',
              id: 3,
              method: 'message/send',
              params: {
                message: { ...textMessage('long'), parts: [{ kind: 'data', data: { workMs: 30_000 } }] },
                configuration: { blocking: false },
              },
            },
            { key: sut.a2aKey },
          )
        ).body,
      );
      const canceled = await rpc(
        endpoint(SLOW),
        { jsonrpc: '2.0', id: 4, method: 'tasks/cancel', params: { id: slow.id } },
        { key: sut.a2aKey },
      );
      expect(resultTask(canceled.body).status.state).toBe('canceled');
    });

    it('a task of another agent or an unknown id is -32001', async () => {
      const a = resultTask(
        (
          await rpc(
            endpoint(ECHO),
            { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: textMessage('mine') } },
            { key: sut.a2aKey },
          )
        ).body,
      );
      const other = await rpc(
        endpoint(FAILING),
        { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: a.id } },
        { key: sut.a2aKey },
      );
      expect(other.body.error.code).toBe(-32001);
      const unknown = await rpc(
        endpoint(ECHO),
        { jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { id: uniqueId('task') } },
        { key: sut.a2aKey },
      );
      expect(unknown.body.error.code).toBe(-32001);
    });

    it('a Task Agent serves no card and its A2A endpoint answers 404 "A2A is not enabled for this agent"', async () => {
      const card = await fetch(cardUrl(base, TASK_AGENT));
      expect(card.status).toBe(404);
      const r = await rpc(
        endpoint(TASK_AGENT),
        { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: textMessage('x') } },
        { key: sut.a2aKey },
      );
      expect(r.status).toBe(404);
      expect(r.body.error.message).toBe('A2A is not enabled for this agent');
    });

    it('conversation memory: a later send with the same contextId knows what was said', async () => {
      const first = resultTask(
        (
          await rpc(
            endpoint(ECHO),
            { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: textMessage('the sky is green') } },
            { key: sut.a2aKey },
          )
        ).body,
      );
      const second = resultTask(
        (
          await rpc(
            endpoint(ECHO),
            {
              jsonrpc: '2.0',
              id: 2,
              method: 'message/send',
              params: { message: textMessage('what did I say?', { contextId: first.contextId }) },
            },
            { key: sut.a2aKey },
          )
        ).body,
      );
      expect(second.contextId).toBe(first.contextId);
      expect(second.artifacts?.[0]?.parts[0]).toEqual({ kind: 'text', text: 'You said: the sky is green' });
    });

    it('every gateway replica serves the same tasks', async () => {
      const a = resultTask(
        (
          await rpc(
            endpoint(ECHO),
            { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: textMessage('replicas') } },
            { key: sut.a2aKey },
          )
        ).body,
      );
      for (const other of sut.otherBaseUrls) {
        const g = await rpc(
          `${other}/agents/${ECHO}/a2a`,
          { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: a.id } },
          { key: sut.a2aKey },
        );
        expect(g.body.result.status.state).toBe('completed');
      }
    });
  });
}
