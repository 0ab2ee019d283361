import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import { startSystem, type System } from '@a2a-inbound/embedded';
import {
  a2aClient,
  eventually,
  sse,
  startContractAgent,
  startRedirectTrap,
  startUpstreamAgents,
  textMessage,
  type ContractAgent,
  type UpstreamAgents,
} from '@a2a-inbound/testing';

/** The Task of a JSON-RPC success answer of the SDK's A2AClient. */
function taskOf(res: unknown): Task {
  const r = res as { result?: Task; error?: { message: string } };
  if (!r.result) throw new Error(`JSON-RPC error: ${r.error?.message ?? 'no result'}`);
  return r.result;
}

const artifactText = (t: Task, name?: string): string =>
  (t.artifacts ?? [])
    .filter((a) => name === undefined || a.name === name)
    .flatMap((a) => a.parts.map((p) => (p.kind === 'text' ? p.text : '')))
    .join('');

const statusText = (m: Message | undefined): string =>
  (m?.parts ?? []).map((p) => (p.kind === 'text' ? p.text : '')).join('');

/**
 * Existing agents behind the gateway, end to end in the embedded mode: agent versions with runtime
 * `a2a-upstream` (real @a2a-js/sdk upstream agents) and `http` (a contract agent) are created through the
 * management API and called through our gateway with the @a2a-js/sdk client. The upstreams are on loopback:
 * the egress allow-list (EGRESS_ALLOW_CIDRS) admits them; a second system without it refuses their definitions.
 */
describe('a2a-upstream and http runtimes behind the gateway (embedded)', () => {
  let system: System;
  let strictSystem: System;
  let up: UpstreamAgents;
  let contract: ContractAgent;
  let base: string;
  let key: string;

  async function api(sys: System, method: string, path: string, body?: unknown): Promise<any> {
    const res = await fetch(`${sys.baseUrl}/api/v1${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${sys.tasks.seed!.credentials!.adminToken}`,
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const json: unknown = await res.json();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }

  /** An agent whose production version runs `runtime` with `runtimeConfig`, served with A2A on the demo deployment. */
  async function deploy(
    sys: System,
    name: string,
    runtime: string,
    runtimeConfig: Record<string, unknown>,
    card: Record<string, unknown> = {},
  ): Promise<string> {
    const agent = await api(sys, 'POST', '/agents', { name: `${name}-${Date.now().toString(36)}`, type: 'AI Agent' });
    const id = agent.id as string;
    await api(sys, 'POST', `/agents/${id}/versions`, { version: '1.0.0', runtime, runtimeConfig, ...card });
    await api(sys, 'POST', `/agents/${id}/versions/1.0.0/promote`);
    await api(sys, 'POST', '/deployments/demo-deployment/agents', { agentId: id, settings: { a2aEnabled: true } });
    return id;
  }

  beforeAll(async () => {
    up = await startUpstreamAgents();
    contract = await startContractAgent();
    system = await startSystem({
      env: {
        PORT: '0',
        HOST: '127.0.0.1',
        EGRESS_ALLOW_CIDRS: '127.0.0.1/32',
        SECRETS_KEY: Buffer.alloc(32, 5).toString('base64'),
      },
      log: silentLogger(),
    });
    strictSystem = await startSystem({ env: { PORT: '0', HOST: '127.0.0.1' }, log: silentLogger() });
    base = system.baseUrl;
    key = system.tasks.seed!.credentials!.a2aKey;
  }, 60_000);
  afterAll(async () => {
    await system?.close();
    await strictSystem?.close();
    await up?.close();
    await contract?.close();
  }, 60_000);

  it('message/stream through an a2a-upstream agent streams the upstream deltas and completes', async () => {
    const id = await deploy(system, 'upstream-stream', 'a2a-upstream', { url: up.url('stream') });
    const client = await a2aClient(base, id, key);
    const events: unknown[] = [];
    for await (const e of client.sendMessageStream({ message: textMessage('hello upstream') as never })) events.push(e);
    expect(events[0]).toMatchObject({ kind: 'task', status: { state: 'working' } });
    const deltas = events.filter(
      (e): e is TaskArtifactUpdateEvent => (e as { kind: string }).kind === 'artifact-update',
    );
    expect(deltas.length).toBe(3);
    expect(deltas.map((d) => d.artifact.name)).toEqual(['answer', 'answer', 'answer']);
    const last = events.at(-1) as TaskStatusUpdateEvent;
    expect(last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    const task = taskOf(await client.getTask({ id: last.taskId }));
    expect(artifactText(task, 'answer')).toMatch(/^upstream heard: hello upstream ctx=/);
  });

  it('message/send with a file: the stored file reaches the upstream as bytes', async () => {
    const id = await deploy(system, 'upstream-files', 'a2a-upstream', {
      url: `${up.base}/agents/stream/.well-known/agent-card.json`,
    });
    const client = await a2aClient(base, id, key);
    const message = textMessage('see attached', {
      parts: [
        { kind: 'text', text: 'see attached' },
        {
          kind: 'file',
          file: { name: 'a.txt', mimeType: 'text/plain', bytes: Buffer.from('attached body').toString('base64') },
        },
      ],
    });
    const task = taskOf(await client.sendMessage({ message: message as never }));
    expect(task.status.state).toBe('completed');
    expect(artifactText(task, 'answer')).toContain('files=a.txt:text/plain:attached body');
  });

  it('input-required upstream: our task waits; the reply on our task continues the same upstream task', async () => {
    const id = await deploy(system, 'upstream-input', 'a2a-upstream', { url: up.url('input') });
    const client = await a2aClient(base, id, key);
    const first = taskOf(await client.sendMessage({ message: textMessage('reserve') as never }));
    expect(first.status.state).toBe('input-required');
    expect(statusText(first.status.message)).toBe('What is your name?');
    const upstreamTask = up.received.filter((r) => r.agent === 'input').length;
    const reply = taskOf(
      await client.sendMessage({
        message: textMessage('Ada', { taskId: first.id, contextId: first.contextId }) as never,
      }),
    );
    expect(reply.id).toBe(first.id);
    expect(reply.status.state).toBe('completed');
    const sent = up.received.filter((r) => r.agent === 'input');
    expect(sent).toHaveLength(upstreamTask + 1);
    expect(statusText(reply.status.message)).toBe(`Hello Ada (task ${sent.at(-1)!.message.taskId})`);
  });

  it('an upstream failure ends the task failed with its reason', async () => {
    const id = await deploy(system, 'upstream-failing', 'a2a-upstream', { url: up.url('failing') });
    const client = await a2aClient(base, id, key);
    const task = taskOf(await client.sendMessage({ message: textMessage('go') as never }));
    expect(task.status.state).toBe('failed');
    expect(statusText(task.status.message)).toBe('upstream exploded: quota exhausted');
  });

  it('tasks/cancel on our task cancels the upstream task', async () => {
    const id = await deploy(system, 'upstream-slow', 'a2a-upstream', { url: up.url('slow') });
    const client = await a2aClient(base, id, key);
    const started = taskOf(
      await client.sendMessage({ message: textMessage('take your time') as never, configuration: { blocking: false } }),
    );
    await eventually(async () => {
      const t = taskOf(await client.getTask({ id: started.id }));
      return statusText(t.status.message) === 'working on it' ? t : undefined;
    });
    const before = up.canceled.length;
    const canceled = taskOf(await client.cancelTask({ id: started.id }));
    expect(canceled.status.state).toBe('canceled');
    await eventually(async () => Promise.resolve(up.canceled.length > before ? true : undefined));
  });

  it('message/stream through an http-contract agent (SSE): deltas with append, then completed', async () => {
    // The agent answers with SSE: the version says so, and the card then claims streaming (the SDK client checks).
    const id = await deploy(system, 'http-sse', 'http', { url: `${contract.base}/sse`, streaming: true });
    const client = await a2aClient(base, id, key);
    const events: unknown[] = [];
    for await (const e of client.sendMessageStream({ message: textMessage('there') as never })) events.push(e);
    const last = events.at(-1) as TaskStatusUpdateEvent;
    expect(last.status.state).toBe('completed');
    const task = taskOf(await client.getTask({ id: last.taskId }));
    expect(artifactText(task, 'agent_response')).toBe('Hello there');
    expect(contract.received.at(-1)!.body.taskId).toBe(last.taskId);
  });

  it('message/send through an http-contract agent (JSON)', async () => {
    const id = await deploy(system, 'http-json', 'http', { url: `${contract.base}/json` });
    const client = await a2aClient(base, id, key);
    const task = taskOf(await client.sendMessage({ message: textMessage('json please') as never }));
    expect(task.status.state).toBe('completed');
    expect(artifactText(task, 'agent_response')).toBe('json agent heard: json please (history 0)');
  });

  /** Our agent card of an agent (public, as callers read it). */
  async function cardOf(id: string): Promise<any> {
    const res = await fetch(`${base}/agents/${id}/.well-known/agent-card.json`);
    expect(res.status).toBe(200);
    return res.json();
  }

  it("an a2a-upstream version's card says what the upstream's card says: its input modes, no streaming, its skills", async () => {
    // The upstream `blocking` accepts text/plain only, does not stream and names the skill `direct`; the agent
    // declares text/plain and application/json (the defaults).
    const id = await deploy(system, 'upstream-blocking', 'a2a-upstream', { url: up.url('blocking') });
    const card = await cardOf(id);
    expect(card.description).toBe('test upstream agent blocking'); // the upstream's own words
    expect(card.capabilities.streaming).toBe(false);
    expect(card.defaultInputModes).toEqual(['text/plain']);
    expect(card.defaultOutputModes).toEqual(['text/plain']);
    expect(card.skills).toEqual([
      { id: 'direct', name: 'Direct answer', description: 'Answers at once', tags: ['direct'], examples: [] },
    ]);
    // The version records what it claims (management API).
    expect((await api(system, 'GET', `/agents/${id}`)).versions[0]).toMatchObject({
      streaming: false,
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
    });
    const client = await a2aClient(base, id, key);
    const task = taskOf(await client.sendMessage({ message: textMessage('ping') as never }));
    expect(task.status.state).toBe('completed');
    expect(statusText(task.status.message)).toBe('direct answer to: ping');

    // A streaming upstream: the card streams; the version's own skills win over the upstream's.
    const streamId = await deploy(
      system,
      'upstream-card-stream',
      'a2a-upstream',
      { url: up.url('stream') },
      {
        skills: [{ id: 'mine', name: 'Mine', description: 'our own words', tags: [], examples: [] }],
        defaultInputModes: ['text/*', 'image/png'],
      },
    );
    const streamCard = await cardOf(streamId);
    expect(streamCard.capabilities.streaming).toBe(true);
    expect(streamCard.defaultInputModes).toEqual(['text/plain']);
    expect(streamCard.skills.map((s: { id: string }) => s.id)).toEqual(['mine']);

    // A version that declares only inputs the upstream does not take is refused, naming the field.
    const agent = await api(system, 'POST', '/agents', { name: 'upstream-images-only', type: 'AI Agent' });
    await expect(
      api(system, 'POST', `/agents/${agent.id as string}/versions`, {
        version: '1.0.0',
        runtime: 'a2a-upstream',
        runtimeConfig: { url: up.url('blocking') },
        defaultInputModes: ['image/png'],
      }),
    ).rejects.toThrow(/400 .*defaultInputModes: none of image\/png is accepted by the upstream agent/);
  });

  it('an agent whose card says streaming false refuses message/stream and tasks/resubscribe with -32004 (0.3, 0.2, 1.0)', async () => {
    const id = await deploy(system, 'upstream-no-stream', 'a2a-upstream', { url: up.url('blocking') });
    expect((await cardOf(id)).capabilities.streaming).toBe(false);
    const client = await a2aClient(base, id, key);
    const task = taskOf(await client.sendMessage({ message: textMessage('ping') as never }));
    expect(task.status.state).toBe('completed'); // message/send still works
    // The @a2a-js/sdk 0.3.14 client reads the card and does not even try; the gateway refuses anyone who does.
    await expect(async () => {
      for await (const e of client.sendMessageStream({ message: textMessage('stream?') as never })) void e;
    }).rejects.toThrow(/does not support streaming/);
    for (const path of ['a2a', 'a2a/v0.3', 'a2a/v0.2']) {
      for (const [method, params] of [
        ['message/stream', { message: textMessage('stream please') }],
        ['tasks/resubscribe', { id: task.id }],
      ] as const) {
        const r = await sse(`${base}/agents/${id}/${path}`, { jsonrpc: '2.0', id: 7, method, params }, { key });
        expect(r.status, `${path} ${method}`).toBe(200);
        expect(r.contentType).toMatch(/^text\/event-stream/);
        expect(r.frames.map((f) => f.data)).toEqual([
          {
            jsonrpc: '2.0',
            id: 7,
            error: expect.objectContaining({
              code: -32004,
              message: expect.stringMatching(/capabilities\.streaming false/),
              data: expect.objectContaining({ code: 'UNSUPPORTED_OPERATION' }),
            }),
          },
        ]);
      }
    }
    // Nothing ran for the refused stream: the agent's only tasks are the one message/send made.
    const v1 = await fetch(`${base}/agents/${id}/a2a/v1`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendStreamingMessage',
        params: { message: { messageId: 'no-stream-v1', role: 'ROLE_USER', parts: [{ text: 'x' }] } },
      }),
    });
    expect(((await v1.json()) as { error: { code: number } }).error.code).toBe(-32004);
  });

  it('an a2a-upstream version whose card cannot be read or is no agent card is refused (400, runtimeConfig.url); the served version stays', async () => {
    const id = await deploy(system, 'upstream-kept', 'a2a-upstream', { url: up.url('stream') });
    const before = await cardOf(id);
    // A port nobody listens on (allowed by the allow-list: the refusal is the connection's).
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as AddressInfo;
        s.close(() => resolve(port));
      });
    });
    for (const [version, url, reason] of [
      ['2.0.0', `http://127.0.0.1:${closed}/agent`, /ECONNREFUSED/],
      ['2.0.1', `${up.base}/not-a-card.json`, /is not an agent card: url must be/],
      ['2.0.2', `${up.base}/agents/nobody`, /answered 404/],
    ] as const) {
      const res = await fetch(`${base}/api/v1/agents/${id}/versions`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${system.tasks.seed!.credentials!.adminToken}`,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ version, runtime: 'a2a-upstream', runtimeConfig: { url } }),
      });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { message: string } };
      expect(body.error.message).toMatch(/runtimeConfig\.url: the upstream agent card could not be read: /);
      expect(body.error.message).toMatch(reason);
    }
    expect((await api(system, 'GET', `/agents/${id}`)).versions.map((v: { version: string }) => v.version)).toEqual([
      '1.0.0',
    ]);
    expect(await cardOf(id)).toEqual(before);
  });

  it('an http version claims streaming only when it says its agent answers with SSE; it accepts every input', async () => {
    const json = await cardOf(await deploy(system, 'http-card-json', 'http', { url: `${contract.base}/json` }));
    expect(json.capabilities.streaming).toBe(false);
    expect(json.defaultInputModes).toEqual(['text/plain', 'application/json']);
    const sse = await cardOf(
      await deploy(system, 'http-card-sse', 'http', { url: `${contract.base}/sse`, streaming: true }),
    );
    expect(sse.capabilities.streaming).toBe(true);
    const agent = await api(system, 'POST', '/agents', { name: 'http-bad-streaming', type: 'AI Agent' });
    await expect(
      api(system, 'POST', `/agents/${agent.id as string}/versions`, {
        version: '1.0.0',
        runtime: 'http',
        runtimeConfig: { url: `${contract.base}/sse`, streaming: 'yes' },
      }),
    ).rejects.toThrow(/400 .*runtimeConfig\.streaming: must be true or false/);
  });

  it('without the operator allow-list a private upstream is refused when the version is created (ADR 0020); nothing is sent', async () => {
    const before = up.received.length + contract.received.length;
    for (const [runtime, url] of [
      ['a2a-upstream', up.url('stream')],
      ['http', `${contract.base}/json`],
    ] as const) {
      const agent = await api(strictSystem, 'POST', '/agents', { name: `private-${runtime}`, type: 'AI Agent' });
      await expect(
        api(strictSystem, 'POST', `/agents/${agent.id as string}/versions`, {
          version: '1.0.0',
          runtime,
          runtimeConfig: { url },
        }),
      ).rejects.toThrow(/400 .*runtimeConfig\.url.*not on the operator allow-list/);
      expect((await api(strictSystem, 'GET', `/agents/${agent.id as string}`)).versions).toEqual([]);
    }
    expect(up.received.length + contract.received.length).toBe(before);
  });

  it("an a2a-upstream token goes only to url's origin and allowedOrigins, also when the card changes after creation (ADR 0021, decision 9)", async () => {
    const TOKEN = 'e2e-upstream-origin-token';
    await api(system, 'PUT', '/secrets/origin-token', { value: TOKEN });
    // The configured origin (the trap's first server) serves a card whose service URL a test changes.
    let serviceUrl = '';
    const trap = await startRedirectTrap((req) =>
      req.origin === 'first' && req.path.endsWith('/.well-known/agent-card.json')
        ? {
            body: {
              protocolVersion: '0.3.0',
              name: 'Moving',
              description: 'd',
              url: serviceUrl,
              version: '1',
              capabilities: { streaming: true },
              defaultInputModes: ['text/plain'],
              defaultOutputModes: ['text/plain'],
              skills: [{ id: 's', name: 'S', description: 'd', tags: [] }],
            },
          }
        : undefined,
    );
    const leaked = (from: number): string[] =>
      up.requests
        .slice(from)
        .flatMap((r) => Object.values(r.headers).flat())
        .filter((v): v is string => typeof v === 'string' && v.includes(TOKEN));
    try {
      // Created while its card names its own origin; then the card names a real agent on another origin.
      serviceUrl = `${trap.first}/rpc`;
      const moved = await deploy(system, 'upstream-moved', 'a2a-upstream', {
        url: `${trap.first}/moved`,
        tokenSecret: 'origin-token',
      });
      serviceUrl = up.url('stream');
      const from = up.requests.length;
      const client = await a2aClient(base, moved, key);
      const failed = taskOf(await client.sendMessage({ message: textMessage('hello') as never }));
      expect(failed.status.state).toBe('failed');
      expect(statusText(failed.status.message)).toContain(`add "${up.base}" to runtimeConfig.allowedOrigins`);
      expect(up.requests.length).toBe(from);
      expect(leaked(from)).toEqual([]);

      // A card that already names it refuses the version, naming the setting.
      await expect(
        deploy(system, 'upstream-foreign', 'a2a-upstream', {
          url: `${trap.first}/foreign`,
          tokenSecret: 'origin-token',
        }),
      ).rejects.toThrow(/400 .*runtimeConfig\.allowedOrigins: the upstream agent card names its service on/);

      // Listed: the token goes there and the answer comes back.
      const listed = await deploy(system, 'upstream-listed', 'a2a-upstream', {
        url: `${trap.first}/listed`,
        tokenSecret: 'origin-token',
        allowedOrigins: [up.base],
      });
      const ok = taskOf(
        await (await a2aClient(base, listed, key)).sendMessage({ message: textMessage('hi') as never }),
      );
      expect(ok.status.state).toBe('completed');
      expect(up.received.at(-1)!.authorization).toBe(`Bearer ${TOKEN}`);
    } finally {
      await trap.close();
    }
  });
});
