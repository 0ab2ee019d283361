import { Writable } from 'node:stream';
import { inMemoryEngines, startSystem, type System } from '@a2a-inbound/embedded';
import { createLogger } from '@a2a-inbound/logger';
import { startRunnerApp, loadRunnerConfig } from '@a2a-inbound/runner';
import { a2aClient, eventually, rpc, sse, textMessage } from '@a2a-inbound/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, uid } from '../management/helpers';
import { ScriptedProvider } from './scripted-provider';

/**
 * The `model` runtime end to end in the embedded layout: definitions through the management API, a real
 * scripted OpenAI-compatible server and tool endpoint, the A2A surface through the gateway (raw JSON-RPC,
 * SSE and @a2a-js/sdk), every provider fault, and the secret in no answer and no log line.
 */
const SECRET = 'sk-test-Zq8vN3-never-shown-9f2d';
const DEPLOYMENT = 'demo-deployment';
/** Shared by tasks (seals) and every runner (opens), as in a real deployment. */
const SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');

describe('model runtime (embedded, scripted OpenAI-compatible provider)', () => {
  let provider: ScriptedProvider;
  let system: System;
  let base: string;
  let admin: string;
  let key: string;
  const logLines: string[] = [];
  /** Every answer body the tests read, to look for the secret at the end. */
  const answers: string[] = [];

  const api = async (method: string, path: string, body?: unknown) => {
    const r = await http(base, method, `/api/v1${path}`, { token: admin, ...(body !== undefined ? { body } : {}) });
    answers.push(r.text);
    return r;
  };
  const endpoint = (agentId: string): string => `${base}/agents/${agentId}/a2a`;
  const send = async (
    agentId: string,
    message: Record<string, unknown>,
    configuration: Record<string, unknown> = {},
  ) => {
    const r = await rpc(
      endpoint(agentId),
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message, configuration: { blocking: true, ...configuration } },
      },
      { key },
    );
    answers.push(r.text);
    return r;
  };
  const getTask = async (agentId: string, id: string) => {
    const r = await rpc(endpoint(agentId), { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id } }, { key });
    answers.push(r.text);
    return r.body.result;
  };
  const modelConfig = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    baseUrl: `${provider.url}/v1`,
    model: 'scripted-1',
    apiKeySecret: 'openai',
    instructions: 'You are a test agent.',
    maxRetries: 1,
    ...extra,
  });
  const weatherTool = (): Record<string, unknown> => ({
    type: 'http',
    name: 'get_weather',
    description: 'Weather of a city',
    method: 'GET',
    url: `${provider.url}/tools/weather/{city}`,
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  });
  const deleteTool = (): Record<string, unknown> => ({
    type: 'http',
    name: 'delete_item',
    description: 'Deletes an item',
    method: 'POST',
    url: `${provider.url}/tools/delete/{id}`,
    parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    requiresApproval: true,
  });

  async function modelAgent(config: Record<string, unknown>, modes?: string[]): Promise<string> {
    const created = await api('POST', '/agents', {
      name: uid('Model'),
      description: 'A model agent',
      type: 'AI Agent',
      skills: [{ id: 'chat', name: 'Chat', description: 'Chats', tags: ['model'], examples: ['hi'] }],
      ...(modes ? { defaultInputModes: modes } : {}),
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const v = await api('POST', `/agents/${id}/versions`, {
      version: '1.0.0',
      runtime: 'model',
      runtimeConfig: config,
    });
    expect(v.status, v.text).toBe(201);
    expect((await api('POST', `/agents/${id}/versions/1.0.0/promote`)).status).toBe(200);
    const added = await api('POST', `/deployments/${DEPLOYMENT}/agents`, {
      agentId: id,
      settings: { a2aEnabled: true },
    });
    expect(added.status).toBe(201);
    return id;
  }
  const answerText = (task: any): string =>
    (task.artifacts ?? [])
      .filter((a: any) => a.name === 'answer')
      .flatMap((a: any) => a.parts.map((p: any) => p.text))
      .join('');
  const statusText = (task: any): string => (task.status.message?.parts ?? []).map((p: any) => p.text).join('');

  beforeAll(async () => {
    provider = await new ScriptedProvider().start();
    const capture = new Writable({
      write(chunk: Buffer, _enc, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    });
    system = await startSystem({
      // The provider and the tools listen on loopback: on the operator allow-list (tasks and runners).
      env: { PORT: '0', HOST: '127.0.0.1', SECRETS_KEY, EGRESS_ALLOW_CIDRS: '127.0.0.1/32' },
      engines: inMemoryEngines(),
      log: createLogger({ service: 'test', level: 'debug', destination: capture }),
    });
    base = system.baseUrl;
    admin = system.tasks.seed!.credentials!.adminToken;
    key = system.tasks.seed!.credentials!.a2aKey;
    const put = await api('PUT', '/secrets/openai', { value: SECRET });
    expect(put.status, put.text).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await system?.close();
    for (const c of Object.values(system?.engines ?? {})) if (typeof c === 'object' && 'close' in c) await c.close();
    await provider?.close();
  }, 60_000);

  describe('definitions', () => {
    it('secrets: the list shows names only; the value is in no answer', async () => {
      const list = await api('GET', '/secrets');
      expect(list.status).toBe(200);
      expect(list.body.secrets).toEqual([
        { name: 'openai', createdAt: expect.any(String), updatedAt: expect.any(String) },
      ]);
      expect(list.text).not.toContain(SECRET);
    });

    it('bad definitions are refused with the field path and the reason, and nothing deployed changes', async () => {
      const id = await modelAgent(modelConfig());
      const before = await api('GET', `/agents/${id}`);
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [{ version: '2.0.0', runtime: 'gpt-magic', runtimeConfig: {} }, 'runtime', /unknown runtime "gpt-magic"/],
        [
          { version: '2.0.1', runtime: 'model', runtimeConfig: modelConfig({ apiKeySecret: 'nope' }) },
          'runtimeConfig.apiKeySecret',
          /secret "nope" does not exist/,
        ],
        [
          {
            version: '2.0.2',
            runtime: 'model',
            runtimeConfig: modelConfig({ tools: [{ ...weatherTool(), url: 'https://10.1.2.3/x' }] }),
          },
          'runtimeConfig.tools[0].url',
          /10\.1\.2\.3 is private/,
        ],
        [
          { version: '2.0.3', runtime: 'model', runtimeConfig: modelConfig({ maxSteps: 0 }) },
          'runtimeConfig.maxSteps',
          /integer from 1/,
        ],
        // ADR 0020 decision 8: the arguments of a tool call must not choose where its headerSecrets go.
        [
          {
            version: '2.0.4',
            runtime: 'model',
            runtimeConfig: modelConfig({ tools: [{ ...weatherTool(), url: 'https://api.{city}.example.com/w' }] }),
          },
          'runtimeConfig.tools[0].url',
          /origin \(scheme, host, port\) of a URL template must be literal/,
        ],
        [
          {
            version: '2.0.5',
            runtime: 'model',
            runtimeConfig: modelConfig({ tools: [{ ...weatherTool(), url: '{city}/weather' }] }),
          },
          'runtimeConfig.tools[0].url',
          /must start with a literal http:\/\/ or https:\/\/ origin/,
        ],
      ];
      for (const [body, path, reason] of cases) {
        const r = await api('POST', `/agents/${id}/versions`, body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.body.error.code).toBe('INVALID_PARAMS');
        expect(r.body.error.message).toContain(path);
        expect(r.body.error.details.problems).toEqual(
          expect.arrayContaining([{ path, reason: expect.stringMatching(reason) }]),
        );
      }
      expect((await api('GET', `/agents/${id}`)).body.versions).toEqual(before.body.versions);
      // A served secret cannot be deleted from under the agent.
      const del = await api('DELETE', '/secrets/openai');
      expect(del.status).toBe(409);
      expect(del.body.error.message).toContain(id);
    });

    it('the card: streaming as the runtime does; input modes only those the model accepts', async () => {
      const streaming = await modelAgent(modelConfig(), ['text/plain', 'image/png', 'application/pdf']);
      const card = (await http(base, 'GET', `/agents/${streaming}/.well-known/agent-card.json`)).body;
      expect(card.capabilities.streaming).toBe(true);
      expect(card.defaultInputModes).toEqual(['text/plain']);
      const plain = await modelAgent(modelConfig({ stream: false, vision: true }), ['text/plain', 'image/png']);
      const card2 = (await http(base, 'GET', `/agents/${plain}/.well-known/agent-card.json`)).body;
      expect(card2.capabilities.streaming).toBe(false);
      expect(card2.defaultInputModes).toEqual(['text/plain', 'image/png']);
    });
    it("the card follows the served version: its own description, skills and modes; the pin serves the other's", async () => {
      const id = await modelAgent(modelConfig(), ['text/plain', 'image/png']);
      const card = async () => (await http(base, 'GET', `/agents/${id}/.well-known/agent-card.json`)).body;
      const v1 = await card();
      expect(v1).toMatchObject({ version: '1.0.0', description: 'A model agent', capabilities: { streaming: true } });
      expect(v1.skills.map((k: { id: string }) => k.id)).toEqual(['chat']);
      expect(v1.defaultInputModes).toEqual(['text/plain']);
      const v2 = await api('POST', `/agents/${id}/versions`, {
        version: '2.0.0',
        runtime: 'model',
        runtimeConfig: modelConfig({ stream: false, vision: true }),
        description: 'Reads screenshots',
        skills: [{ id: 'see', name: 'See', description: 'Describes images', tags: ['vision'], examples: [] }],
        defaultInputModes: ['text/plain', 'image/png', 'application/pdf'],
        defaultOutputModes: ['text/markdown'],
      });
      expect(v2.status, v2.text).toBe(201);
      expect(v2.body.versions[1]).toMatchObject({
        version: '2.0.0',
        description: 'Reads screenshots',
        skills: [expect.objectContaining({ id: 'see' })],
        defaultInputModes: ['text/plain', 'image/png', 'application/pdf'],
        defaultOutputModes: ['text/markdown'],
      });
      expect(v2.body.versions[0]).not.toHaveProperty('description');
      expect((await card()).description).toBe('A model agent'); // published, not served yet
      expect((await api('POST', `/agents/${id}/versions/2.0.0/promote`)).status).toBe(200);
      const served = await card();
      expect(served).toMatchObject({
        version: '2.0.0',
        description: 'Reads screenshots',
        capabilities: { streaming: false },
        defaultInputModes: ['text/plain', 'image/png'],
        defaultOutputModes: ['text/markdown'],
      });
      expect(served.skills.map((k: { id: string }) => k.id)).toEqual(['see']);
      // Bad card fields of a version are refused like the agent's.
      const bad = await api('POST', `/agents/${id}/versions`, {
        version: '2.0.1',
        runtime: 'model',
        runtimeConfig: modelConfig(),
        defaultInputModes: [],
      });
      expect(bad.status).toBe(400);
      // A card with no input the runtime accepts (images for a text-only model) is refused too.
      const noInput = await api('POST', `/agents/${id}/versions`, {
        version: '2.0.2',
        runtime: 'model',
        runtimeConfig: modelConfig(),
        defaultInputModes: ['image/png'],
      });
      expect(noInput.status).toBe(400);
      expect(noInput.body.error.details.problems).toEqual([
        {
          path: 'defaultInputModes',
          reason: expect.stringMatching(/none of image\/png is an input the model runtime accepts/),
        },
      ]);
      const pinned = await api('PATCH', `/deployments/${DEPLOYMENT}/agents/${id}/settings`, {
        versionStrategy: 'pinned',
        pinnedVersion: '1.0.0',
      });
      expect(pinned.status, pinned.text).toBe(200);
      expect(await card()).toMatchObject({ version: '1.0.0', description: 'A model agent', skills: v1.skills });
    });

    it('a published version is immutable: publishing it again is refused and what is served does not change', async () => {
      const id = await modelAgent(modelConfig({ instructions: 'first' }));
      const before = await api('GET', `/agents/${id}`);
      const again = await api('POST', `/agents/${id}/versions`, {
        version: '1.0.0',
        runtime: 'model',
        runtimeConfig: modelConfig({ instructions: 'second', stream: false }),
      });
      expect(again.status).toBe(409);
      expect(again.body.error.message).toContain('version 1.0.0 exists');
      expect((await api('GET', `/agents/${id}`)).body.versions).toEqual(before.body.versions);
      expect((await http(base, 'GET', `/agents/${id}/.well-known/agent-card.json`)).body.capabilities.streaming).toBe(
        true,
      );
      for (const method of ['PUT', 'PATCH'])
        expect((await api(method, `/agents/${id}/versions/1.0.0`, { runtime: 'model' })).status).toBe(404);
    });
  });

  describe('runs', () => {
    let agent: string;
    beforeAll(async () => {
      agent = await modelAgent(modelConfig({ tools: [weatherTool(), deleteTool()], requestTimeoutMs: 1_000 }));
    }, 30_000);

    it('message/stream: token deltas as artifact-update frames with append: true, then completed with usage', async () => {
      const r = await sse(
        endpoint(agent),
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'message/stream',
          params: { message: textMessage('stream: one two three four five') },
        },
        { key },
      );
      answers.push(JSON.stringify(r.frames));
      const updates = r.frames.map((f) => f.data.result).filter((x) => x.kind === 'artifact-update');
      expect(updates.length).toBeGreaterThanOrEqual(5);
      expect(updates.slice(1).every((u) => u.append === true)).toBe(true);
      expect(updates.at(-1).lastChunk).toBe(true);
      expect(updates.map((u) => u.artifact.parts[0].text).join('')).toBe('one two three four five');
      const final = r.frames.at(-1)!.data.result;
      expect(final.status.state).toBe('completed');
      expect(final.status.message.metadata['a2a-inbound/usage']).toMatchObject({
        totalTokens: expect.any(Number),
        model: 'scripted-1',
      });
      // The provider got the instructions, the key (by reference) and the stream request.
      const seen = provider.requests.at(-1)!;
      expect(seen.authorization).toBe(`Bearer ${SECRET}`);
      expect(seen.body.stream).toBe(true);
      expect(seen.body.messages[0]).toEqual({ role: 'system', content: 'You are a test agent.' });
    });

    it('@a2a-js/sdk client: a tool call through the guarded egress, its result in the answer', async () => {
      const client = await a2aClient(base, agent, key);
      const before = provider.toolCalls.length;
      const res: any = await client.sendMessage({
        message: textMessage('weather Paris') as any,
        configuration: { blocking: true },
      });
      const task = res.result;
      expect(task.status.state).toBe('completed');
      expect(provider.toolCalls.slice(before)).toEqual([
        expect.objectContaining({ path: '/tools/weather/Paris', method: 'GET' }),
      ]);
      expect(answerText(task)).toContain('"tempC":21');
      expect(statusText(task)).toContain('"tempC":21');
    });

    it('file parts reach the model: a text file inline, another type described by name and type', async () => {
      const task = (
        await send(agent, {
          kind: 'message',
          role: 'user',
          messageId: uid('m'),
          parts: [
            { kind: 'text', text: 'read these' },
            {
              kind: 'file',
              file: {
                name: 'notes.txt',
                mimeType: 'text/plain',
                bytes: Buffer.from('the launch is on Tuesday').toString('base64'),
              },
            },
            {
              kind: 'file',
              file: {
                name: 'scan.pdf',
                mimeType: 'application/pdf',
                bytes: Buffer.from('%PDF-1.4').toString('base64'),
              },
            },
          ],
        })
      ).body.result;
      expect(task.status.state).toBe('completed');
      const content = String(provider.requests.at(-1)!.body.messages.at(-1)!.content);
      expect(content).toContain('File notes.txt (text/plain):\nthe launch is on Tuesday');
      expect(content).toMatch(/\[Attached file: scan\.pdf \(application\/pdf, 8 bytes\)/);
    });

    it('memory: a later message of the same context carries the earlier turns', async () => {
      const first = (await send(agent, textMessage('my name is Ada'))).body.result;
      const second = (await send(agent, textMessage('recall', { contextId: first.contextId }))).body.result;
      expect(second.status.state).toBe('completed');
      expect(answerText(second)).toContain('my name is Ada');
    });

    it('approval tool: input-required with the prompt; "approve" on the same task runs the tool and completes', async () => {
      const before = provider.toolCalls.length;
      const paused = (await send(agent, textMessage('delete item-7'))).body.result;
      expect(paused.status.state).toBe('input-required');
      expect(statusText(paused)).toMatch(/Approval needed: the agent wants to call "delete_item"/);
      // What "reject" does is said before the user chooses: the call is refused, the agent goes on without it.
      expect(statusText(paused)).toContain(
        '"reject" to refuse it: the agent is told the call was refused and goes on without it',
      );
      expect(provider.toolCalls.length).toBe(before); // nothing done before the approval
      const done = (await send(agent, textMessage('approve', { taskId: paused.id, contextId: paused.contextId }))).body
        .result;
      expect(done.status.state).toBe('completed');
      expect(provider.toolCalls.slice(before)).toEqual([
        expect.objectContaining({ path: '/tools/delete/item-7', method: 'POST' }),
      ]);
      expect(statusText(done)).toContain('"deleted":"item-7"');
    });

    it('approval rejected after a runner restart: the run resumes from the stored state on the new runner', async () => {
      const before = provider.toolCalls.length;
      const paused = (await send(agent, textMessage('delete item-9'))).body.result;
      expect(paused.status.state).toBe('input-required');
      // The runner that paused it goes away; a new one (nothing in memory) takes the reply.
      await system.runners[0]!.close();
      const fresh = await startRunnerApp(
        {
          bus: system.engines.bus,
          cache: system.engines.cache,
          blobs: system.engines.blobs,
          clock: system.engines.clock,
          log: createLogger({ service: 'runner', level: 'silent' }),
        },
        loadRunnerConfig(
          { RUNNER_GRPC_PORT: '0', SECRETS_KEY, EGRESS_ALLOW_CIDRS: '127.0.0.1/32' },
          'runner-restarted',
        ),
      );
      system.runners.push(fresh);
      try {
        const done = (await send(agent, textMessage('reject', { taskId: paused.id, contextId: paused.contextId }))).body
          .result;
        expect(done.status.state).toBe('completed');
        expect(provider.toolCalls.length).toBe(before); // rejected: never called
        expect(statusText(done)).toContain('the user rejected this call');
      } finally {
        system.runners.splice(0, 1);
      }
    });

    it('the tool loop is bounded: past maxSteps model calls the task fails, saying so', async () => {
      const bounded = await modelAgent(modelConfig({ tools: [weatherTool()], maxSteps: 1 }));
      const before = provider.requests.length;
      const task = (await send(bounded, textMessage('weather Rome'))).body.result;
      expect(task.status.state).toBe('failed');
      expect(statusText(task)).toBe('The agent did not finish within 1 model calls (maxSteps of this agent version).');
      expect(provider.requests.length - before).toBe(1);
    });

    it('429 is retried with backoff, then the task fails with a reason to act on', async () => {
      const before = provider.requests.length;
      const task = (await send(agent, textMessage('fail429 please'))).body.result;
      expect(task.status.state).toBe('failed');
      expect(statusText(task)).toMatch(
        /rate limiting this agent \(HTTP 429\) after 2 attempt\(s\): Rate limit reached for requests\. Try again later/,
      );
      expect(statusText(task)).not.toContain('..');
      expect(provider.requests.length - before).toBe(2); // maxRetries: 1
    });

    it('a 5xx is retried: a provider that fails once answers on the retry', async () => {
      const task = (await send(agent, textMessage('flaky but fine'))).body.result;
      expect(task.status.state).toBe('completed');
      expect(answerText(task)).toBe('echo: flaky but fine');
      const failing = (await send(agent, textMessage('fail500 always'))).body.result;
      expect(failing.status.state).toBe('failed');
      expect(statusText(failing)).toMatch(/provider failed \(HTTP 500\) after 2 attempt/);
    });

    it('401 fails at once, telling to check the key secret, without quoting the key', async () => {
      const before = provider.requests.length;
      const task = (await send(agent, textMessage('fail401'))).body.result;
      expect(task.status.state).toBe('failed');
      expect(statusText(task)).toMatch(/refused the credentials \(HTTP 401\).*Check the API key secret/);
      expect(statusText(task)).toContain('[redacted]');
      expect(provider.requests.length - before).toBe(1); // not retried
    });

    it('a provider that hangs: the task fails after requestTimeoutMs, never left working', async () => {
      const task = (await send(agent, textMessage('hang forever'))).body.result;
      expect(task.status.state).toBe('failed');
      expect(statusText(task)).toMatch(/did not answer within 1000 ms \(requestTimeoutMs\)/);
    });

    it('tasks/cancel during a model stream aborts the provider request', async () => {
      let taskId = '';
      await sse(
        endpoint(agent),
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'message/stream',
          params: { message: textMessage('slow: a b c d e f g h i j k l') },
        },
        {
          key,
          stopAfter: (f) => {
            taskId ||= f.data.result?.taskId ?? f.data.result?.id ?? '';
            return f.data.result?.kind === 'artifact-update';
          },
        },
      );
      expect(taskId).not.toBe('');
      const seen = provider.requests.at(-1)!;
      const canceled = await rpc(
        endpoint(agent),
        { jsonrpc: '2.0', id: 3, method: 'tasks/cancel', params: { id: taskId } },
        { key },
      );
      expect(canceled.body.result.status.state).toBe('canceled');
      await eventually(async () => seen.aborted, 5_000);
      const task = await getTask(agent, taskId);
      expect(task.status.state).toBe('canceled');
      expect(answerText(task).length).toBeLessThan('a b c d e f g h i j k l'.length);
    });
  });

  it('the secret is in no API answer and no log line', async () => {
    const agents = await api('GET', '/agents');
    expect(agents.status).toBe(200);
    expect(answers.length).toBeGreaterThan(20);
    for (const a of answers) expect(a).not.toContain(SECRET);
    expect(logLines.some((l) => l.includes('model usage'))).toBe(true);
    for (const l of logLines) expect(l).not.toContain(SECRET);
  });
});
