import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, rpc, textMessage } from '@a2a-inbound/testing';
import { closeHarness, http, startHarness, uid, type Answer, type Harness } from './helpers';

/** Reads an SSE answer (GET) until a frame says final or `max` frames arrived. */
async function readEvents(
  url: string,
  key: string,
  headers: Record<string, string> = {},
  max = 50,
): Promise<{ status: number; contentType: string | null; frames: { id?: number; data: any }[]; headers: Headers }> {
  const ac = new AbortController();
  const res = await fetch(url, {
    headers: { Authorization: `Bearer ${key}`, Accept: 'text/event-stream', ...headers },
    signal: ac.signal,
  });
  const frames: { id?: number; data: any }[] = [];
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
    return { status: res.status, contentType: res.headers.get('content-type'), frames, headers: res.headers };
  }
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = '';
  try {
    while (frames.length < max) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let i: number;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const raw = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const frame: { id?: number; data: any } = { data: undefined };
        for (const line of raw.split('\n')) {
          if (line.startsWith('id:')) frame.id = Number(line.slice(3).trim());
          if (line.startsWith('data:')) frame.data = JSON.parse(line.slice(5).trim());
        }
        if (frame.data !== undefined) frames.push(frame);
        if (frame.data?.final === true) {
          ac.abort();
          return { status: res.status, contentType: res.headers.get('content-type'), frames, headers: res.headers };
        }
      }
    }
  } catch (err) {
    if (!ac.signal.aborted) throw err;
  }
  ac.abort();
  return { status: res.status, contentType: res.headers.get('content-type'), frames, headers: res.headers };
}

describe('legacy REST task endpoints (deprecated)', () => {
  let h: Harness;
  let base: string;
  const expectDeprecated = (r: { headers: Headers }, agentId: string): void => {
    expect(r.headers.get('deprecation')).toBe('true');
    expect(r.headers.get('link')).toContain(`<${base}/agents/${agentId}/a2a>; rel="successor-version"`);
  };

  beforeAll(async () => {
    h = await startHarness();
    base = h.base;
  }, 60_000);
  afterAll(async () => closeHarness(h), 60_000);

  it('POST /agents/{id}/tasks takes legacy type/content parts and snake_case fields and answers snake_case', async () => {
    const messageId = uid('legacy');
    const r = await http(base, 'POST', '/agents/demo-echo/tasks', {
      token: h.creds.a2aKey,
      body: {
        message: { role: 'user', message_id: messageId, parts: [{ type: 'text', content: 'legacy hello' }] },
        configuration: { history_length: 5 },
      },
    });
    expect(r.status).toBe(200);
    expectDeprecated(r, 'demo-echo');
    expect(r.body.task_id).toEqual(expect.any(String));
    expect(r.body.context_id).toEqual(expect.any(String));
    expect(r.body).not.toHaveProperty('contextId');
    expect(r.body.status.state).toBe('completed');
    const answer = r.body.artifacts.find((a: any) => a.name === 'agent_response');
    expect(answer.artifact_id).toEqual(expect.any(String));
    expect(answer.parts.map((p: any) => p.content).join('')).toBe('legacy hello');
    expect(answer.parts[0].type).toBe('text');
    expect(r.body.history[0]).toMatchObject({
      role: 'user',
      message_id: messageId,
      parts: [{ type: 'text', content: 'legacy hello' }],
    });
    // Idempotent on message_id like message/send.
    const again = await http(base, 'POST', '/agents/demo-echo/tasks', {
      token: h.creds.a2aKey,
      body: { message: { message_id: messageId, parts: [{ type: 'text', content: 'legacy hello' }] } },
    });
    expect(again.body.task_id).toBe(r.body.task_id);
  });

  it('accepts kind/text parts too, and a context_id keeps the conversation', async () => {
    const first = await http(base, 'POST', '/agents/demo-echo/tasks', {
      token: h.creds.a2aKey,
      body: { message: { parts: [{ kind: 'text', text: 'remember me' }] } },
    });
    expect(first.status).toBe(200);
    const second = await http(base, 'POST', '/agents/demo-echo/tasks', {
      token: h.creds.a2aKey,
      body: { message: { context_id: first.body.context_id, parts: [{ type: 'text', content: 'what did i say?' }] } },
    });
    expect(second.body.context_id).toBe(first.body.context_id);
    expect(second.body.artifacts[0].parts.map((p: any) => p.content).join('')).toBe('You said: remember me');
  });

  it('GET /agents/{id}/tasks/{task_id} reads the task (history only with history_length)', async () => {
    const sent = await http(base, 'POST', '/agents/demo-echo/tasks', {
      token: h.creds.a2aKey,
      body: { message: { parts: [{ type: 'text', content: 'read me' }] } },
    });
    const got = await http(base, 'GET', `/agents/demo-echo/tasks/${sent.body.task_id}`, { token: h.creds.a2aKey });
    expect(got.status).toBe(200);
    expectDeprecated(got, 'demo-echo');
    expect(got.body.task_id).toBe(sent.body.task_id);
    expect(got.body).not.toHaveProperty('history');
    const withHistory = await http(base, 'GET', `/agents/demo-echo/tasks/${sent.body.task_id}?history_length=1`, {
      token: h.creds.a2aKey,
    });
    expect(withHistory.body.history).toHaveLength(1);
    const missing = await http(base, 'GET', '/agents/demo-echo/tasks/no-such-task', { token: h.creds.a2aKey });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('TASK_NOT_FOUND');
    expectDeprecated(missing, 'demo-echo');
  });

  it('POST .../cancel cancels a working task and refuses a finished one with 409', async () => {
    const working = await http(base, 'POST', '/agents/demo-slow/tasks', {
      token: h.creds.a2aKey,
      body: {
        message: {
          parts: [
            { type: 'text', content: 'slow' },
            { type: 'data', data: { workMs: 5000 } },
          ],
        },
        configuration: { blocking: false },
      },
    });
    expect(working.body.status.state).toBe('working');
    const canceled = await http(base, 'POST', `/agents/demo-slow/tasks/${working.body.task_id}/cancel`, {
      token: h.creds.a2aKey,
    });
    expect(canceled.status).toBe(200);
    expectDeprecated(canceled, 'demo-slow');
    expect(canceled.body.status.state).toBe('canceled');
    const again = await http(base, 'POST', `/agents/demo-slow/tasks/${working.body.task_id}/cancel`, {
      token: h.creds.a2aKey,
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('TASK_NOT_CANCELABLE');
  });

  it('GET .../events streams the task events as SSE in snake_case, and honours Last-Event-ID', async () => {
    const started = await http(base, 'POST', '/agents/demo-slow/tasks', {
      token: h.creds.a2aKey,
      body: {
        message: {
          parts: [
            { type: 'text', content: 'stream' },
            { type: 'data', data: { workMs: 200 } },
          ],
        },
        configuration: { blocking: false },
      },
    });
    const taskId = started.body.task_id as string;
    const live = await readEvents(`${base}/agents/demo-slow/tasks/${taskId}/events`, h.creds.a2aKey);
    expect(live.status).toBe(200);
    expect(live.contentType).toMatch(/^text\/event-stream/);
    expect(live.headers.get('deprecation')).toBe('true');
    const last = live.frames.at(-1)!;
    expect(last.data).toMatchObject({
      kind: 'status-update',
      task_id: taskId,
      final: true,
      status: { state: 'completed' },
    });
    const artifactFrame = live.frames.find((f) => f.data.kind === 'artifact-update');
    expect(artifactFrame?.data.artifact.artifact_id).toEqual(expect.any(String));
    expect(artifactFrame?.data.artifact.parts[0].type).toBe('text');
    // After the task finished, Last-Event-ID of an earlier event replays only what came after it.
    const ids = live.frames.map((f) => f.id).filter((x): x is number => typeof x === 'number');
    const resumed = await readEvents(`${base}/agents/demo-slow/tasks/${taskId}/events`, h.creds.a2aKey, {
      'Last-Event-ID': String(ids[0]),
    });
    expect(resumed.frames.length).toBeGreaterThan(0);
    expect(resumed.frames.every((f) => (f.id ?? 0) > ids[0]!)).toBe(true);
    expect(resumed.frames.at(-1)!.data.final).toBe(true);
  });

  it('uses the A2A key rules, the A2A-enabled rule and JSON errors', async () => {
    const body = { message: { parts: [{ type: 'text', content: 'x' }] } };
    const noKey = await http(base, 'POST', '/agents/demo-echo/tasks', { body });
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(noKey.body.error.code).toBe('UNAUTHENTICATED');
    expectDeprecated(noKey, 'demo-echo');
    const invokeKey = await http(base, 'POST', '/agents/demo-echo/tasks', { token: h.creds.invokeKey, body });
    expect(invokeKey.status).toBe(403);
    const taskAgent = await http(base, 'POST', '/agents/demo-task-agent/tasks', { token: h.creds.a2aKey, body });
    expect(taskAgent.status).toBe(404);
    expect(taskAgent.body.error.message).toBe('A2A is not enabled for this agent');
    const bad = await http(base, 'POST', '/agents/demo-echo/tasks', {
      token: h.creds.a2aKey,
      body: { message: { parts: [] } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_PARAMS');
    const malformed = await http(base, 'POST', '/agents/demo-echo/tasks', {
      token: h.creds.a2aKey,
      body: '{"message":',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('PARSE_ERROR');
    const wrongMethod = await http(base, 'PUT', '/agents/demo-echo/tasks', { token: h.creds.a2aKey });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body.error).toBeDefined();
  });
});

describe('invoke endpoints (scope invoke)', () => {
  let h: Harness;
  let base: string;
  const post = (path: string, key: string | undefined, body: unknown): Promise<Answer> =>
    http(base, 'POST', path, { token: key, body });
  const get = (path: string, key: string | undefined): Promise<Answer> => http(base, 'GET', path, { token: key });
  const api = (method: string, path: string, body?: unknown): Promise<Answer> =>
    http(base, method, `/api/v1${path}`, { token: h.creds.operatorToken, body });

  beforeAll(async () => {
    h = await startHarness();
    base = h.base;
  }, 60_000);
  afterAll(async () => closeHarness(h), 60_000);

  it('a Task Agent run returns a run id at once and runs in the background; details and history read it', async () => {
    const started = await post('/agents/demo-task-agent/runs', h.creds.invokeKey, { input: 'go' });
    expect(started.status).toBe(202);
    expect(started.body.run_id).toEqual(expect.any(String));
    expect(started.body.status).toBe('working');
    expect(started.headers.get('location')).toBe(`${base}/agents/demo-task-agent/runs/${started.body.run_id}`);
    const done = await eventually(async () => {
      const r = await get(`/agents/demo-task-agent/runs/${started.body.run_id}`, h.creds.invokeKey);
      return r.body.status === 'completed' ? r : undefined;
    });
    expect(done.body).toMatchObject({
      run_id: started.body.run_id,
      agent_id: 'demo-task-agent',
      output: 'Graph finished: collect → transform → publish',
    });
    expect(done.body.artifacts.map((a: any) => a.name)).toEqual(expect.arrayContaining(['steps', 'agent_response']));
    const history = await get('/agents/demo-task-agent/runs', h.creds.invokeKey);
    expect(history.status).toBe(200);
    expect(history.body.runs[0]).toMatchObject({ run_id: started.body.run_id, status: 'completed' });
    const missing = await get('/agents/demo-task-agent/runs/nope', h.creds.invokeKey);
    expect(missing.status).toBe(404);
  });

  it('run history is newest first and pages with limit/before', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await post('/agents/demo-task-agent/runs', h.creds.invokeKey, { input: `page ${i}` })).body.run_id);
      await new Promise((r) => setTimeout(r, 5)); // distinct creation times
    }
    const page1 = await get('/agents/demo-task-agent/runs?limit=2', h.creds.invokeKey);
    expect(page1.body.runs.map((r: any) => r.run_id)).toEqual([ids[2], ids[1]]);
    expect(page1.body.next_before).toEqual(expect.any(Number));
    const page2 = await get(`/agents/demo-task-agent/runs?limit=2&before=${page1.body.next_before}`, h.creds.invokeKey);
    expect(page2.body.runs[0].run_id).toBe(ids[0]);
  });

  it('an AI Agent run waits for the answer like message/send', async () => {
    const r = await post('/agents/demo-echo/run', h.creds.invokeKey, { input: 'run me' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ agent_id: 'demo-echo', status: 'completed', output: 'run me' });
    const failed = await post('/agents/demo-failing/run', h.creds.invokeKey, { input: 'x' });
    expect(failed.body.status).toBe('failed');
    expect(failed.body.status_message).toMatch(/could not complete/);
    const taskAgent = await post('/agents/demo-task-agent/run', h.creds.invokeKey, { input: 'x' });
    expect(taskAgent.status).toBe(409);
    expect(taskAgent.body.error.message).toMatch(/runs are asynchronous/);
  });

  it('an AI Agent run streams its events as SSE, text deltas then a final status', async () => {
    const res = await fetch(`${base}/agents/demo-echo/run/stream`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${h.creds.invokeKey}`,
        'Content-Type': 'application/json',
        Accept: 'text/event-stream',
      },
      body: JSON.stringify({ input: 'stream this please' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = (await res.text())
      .split('\n\n')
      .map((f) => f.split('\n').find((l) => l.startsWith('data:')))
      .filter((l): l is string => l !== undefined)
      .map((l): any => JSON.parse(l.slice(5)));
    const runId = frames[0].run_id as string;
    expect(typeof runId).toBe('string');
    expect(frames.every((f) => f.run_id === runId)).toBe(true);
    // Status and artifact events only (the A2A stream's opening Task snapshot is not a run event).
    expect(frames[0]).toMatchObject({ kind: 'status-update', status: { state: 'working' }, final: false });
    expect(frames.every((f) => f.kind === 'status-update' || f.kind === 'artifact-update')).toBe(true);
    const text = frames
      .filter((f) => f.kind === 'artifact-update')
      .map((f) => f.artifact.parts.map((p: any) => p.text).join(''))
      .join('');
    expect(text).toBe('stream this please');
    expect(frames.filter((f) => f.kind === 'artifact-update').length).toBeGreaterThan(1);
    expect(frames.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    const taskAgent = await post('/agents/demo-task-agent/run/stream', h.creds.invokeKey, { input: 'x' });
    expect(taskAgent.status).toBe(409);
    expect(taskAgent.body.error.code).toBe('FAILED_PRECONDITION');
  });

  it('a conversation keeps memory across runs and reads back oldest first', async () => {
    const first = await post('/agents/demo-echo/run', h.creds.invokeKey, { input: 'my name is Ada' });
    const contextId = first.body.context_id as string;
    const second = await post('/agents/demo-echo/run', h.creds.invokeKey, {
      input: 'what did i say?',
      context_id: contextId,
    });
    expect(second.body.output).toBe('You said: my name is Ada');
    const conv = await get(`/agents/demo-echo/conversations/${contextId}`, h.creds.invokeKey);
    expect(conv.status).toBe(200);
    expect(conv.body.runs).toBe(2);
    expect(conv.body.messages.map((m: any) => [m.role, m.text])).toEqual([
      ['user', 'my name is Ada'],
      ['agent', 'my name is Ada'],
      ['user', 'what did i say?'],
      ['agent', 'You said: my name is Ada'],
    ]);
    expect((await get('/agents/demo-echo/conversations/no-such-context', h.creds.invokeKey)).status).toBe(404);
    // Another agent does not see this conversation.
    expect((await get(`/agents/demo-slow/conversations/${contextId}`, h.creds.invokeKey)).status).toBe(404);
  });

  it('needs a key with scope invoke: an a2a key gets 403, no key 401', async () => {
    const a2a = await post('/agents/demo-task-agent/runs', h.creds.a2aKey, { input: 'x' });
    expect(a2a.status).toBe(403);
    expect(a2a.body.error.code).toBe('PERMISSION_DENIED');
    expect(a2a.headers.get('www-authenticate')).toContain('scope="invoke"');
    expect((await get('/agents/demo-task-agent/runs', h.creds.a2aKey)).status).toBe(403);
    expect((await post('/agents/demo-echo/run', undefined, { input: 'x' })).status).toBe(401);
    const bad = await post('/agents/demo-echo/run', h.creds.invokeKey, {});
    expect(bad.status).toBe(400);
    const wrong = await http(base, 'DELETE', '/agents/demo-echo/runs/x', { token: h.creds.invokeKey });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
    expect((await http(base, 'GET', '/agents/demo-echo/run', { token: h.creds.invokeKey })).headers.get('allow')).toBe(
      'POST',
    );
  });

  it('counts against the credits and the agent rate limit', async () => {
    const c0 = (await api('GET', '/credits')).body.credits as number;
    const r = await post('/agents/demo-task-agent/runs', h.creds.invokeKey, { input: 'charge me' });
    expect(r.status).toBe(202);
    const c1 = (await api('GET', '/credits')).body.credits as number;
    expect(c0 - c1).toBe(1);
    // Short of credits: INSUFFICIENT_CREDITS (402 on REST).
    await api('POST', '/credits/add', { amount: -c1 });
    const short = await post('/agents/demo-echo/run', h.creds.invokeKey, { input: 'no credits' });
    expect(short.status).toBe(402);
    expect(short.body.error.code).toBe('INSUFFICIENT_CREDITS');
    await api('POST', '/credits/add', { amount: 1000 });
    // Rate limit shared with the A2A endpoint of the same agent.
    const admin = (method: string, path: string, body?: unknown): Promise<Answer> =>
      http(base, method, `/api/v1${path}`, { token: h.creds.adminToken, body });
    const agentId = (await admin('POST', '/agents', { name: uid('limited'), type: 'AI Agent' })).body.id as string;
    await admin('POST', `/agents/${agentId}/versions`, { version: '1.0.0', runtime: 'demo:echo' });
    await admin('POST', `/agents/${agentId}/versions/1.0.0/promote`);
    const placed = await admin('POST', '/deployments/demo-deployment/agents', {
      agentId,
      settings: { a2aEnabled: true, rateLimitPerMinute: 2 },
    });
    expect(placed.body.settings.rateLimitPerMinute).toBe(2);
    expect((await post(`/agents/${agentId}/run`, h.creds.invokeKey, { input: '1' })).status).toBe(200);
    const viaA2a = await rpc(
      `${base}/agents/${agentId}/a2a`,
      { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: textMessage('2') } },
      { key: h.creds.a2aKey },
    );
    expect(viaA2a.status).toBe(200);
    const limited = await post(`/agents/${agentId}/run`, h.creds.invokeKey, { input: '3' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
