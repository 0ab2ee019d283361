import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sut } from '@a2a-inbound/testing';
import { eventually, rpc, sse, textMessage } from '@a2a-inbound/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, uid } from '../management/helpers';
import { TestMcpServer } from '../agents/mcp-server';
import { ScriptedProvider } from '../agents/scripted-provider';
import { engineUrlsSet, startDistributed, type Cluster } from './cluster';

const SECRET = 'sk-dist-Hq27-never-shown-4c1a';
const MCP_TOKEN = 'mcp-dist-Pw81-never-shown-e3b0';

/**
 * The `model` runtime across processes on Kafka, FerretDB and Redis: the secret sealed by tasks and opened
 * by a runner process (one SECRETS_KEY), the allow-list from configuration, deltas on message/stream, a tool
 * call, an approval approved after both runners were restarted and one rejected after both were killed, cancel
 * during a model stream, each provider fault (429, 500, 401, a hang), and the secret in no log file.
 */
describe.runIf(engineUrlsSet)('model runtime (distributed processes)', () => {
  let cluster: Cluster;
  let sut: Sut;
  let provider: ScriptedProvider;
  let mcp: TestMcpServer;
  let admin: string;
  let agent: string;
  const answers: string[] = [];
  const endpoint = (): string => `${sut.baseUrl}/agents/${agent}/a2a`;
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await http(sut.baseUrl, method, `/api/v1${path}`, {
      token: admin,
      ...(body !== undefined ? { body } : {}),
    });
    answers.push(r.text);
    return r;
  };
  const send = async (message: Record<string, unknown>) => {
    const r = await rpc(
      endpoint(),
      { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message, configuration: { blocking: true } } },
      { key: sut.a2aKey },
    );
    answers.push(r.text);
    return r.body.result;
  };
  const statusText = (task: any): string => (task.status.message?.parts ?? []).map((p: any) => p.text).join('');
  const answerText = (task: any): string =>
    (task.artifacts ?? [])
      .filter((a: any) => a.name === 'answer')
      .flatMap((a: any) => a.parts.map((p: any) => p.text))
      .join('');

  beforeAll(async () => {
    provider = await new ScriptedProvider().start();
    mcp = await new TestMcpServer({ token: MCP_TOKEN }).start();
    ({ cluster, sut } = await startDistributed({
      env: {
        SECRETS_KEY: Buffer.alloc(32, 9).toString('base64'),
        EGRESS_ALLOW_CIDRS: '127.0.0.0/8',
        RUNNER_HEARTBEAT_MS: '1000',
      },
    }));
    admin = cluster.credentials().adminToken!;
    expect(admin).toBeTruthy();
    expect((await api('PUT', '/secrets/provider-key', { value: SECRET })).status).toBe(200);
    expect((await api('PUT', '/secrets/mcp-key', { value: `Bearer ${MCP_TOKEN}` })).status).toBe(200);
    const created = await api('POST', '/agents', {
      name: uid('Model'),
      description: 'model agent',
      type: 'AI Agent',
      skills: [{ id: 'chat', name: 'Chat', description: 'Chats', tags: [], examples: [] }],
    });
    agent = created.body.id;
    const v = await api('POST', `/agents/${agent}/versions`, {
      version: '1.0.0',
      runtime: 'model',
      runtimeConfig: {
        baseUrl: `${provider.url}/v1`,
        model: 'scripted-1',
        apiKeySecret: 'provider-key',
        maxRetries: 1,
        requestTimeoutMs: 5_000,
        tools: [
          {
            type: 'http',
            name: 'get_weather',
            url: `${provider.url}/tools/weather/{city}`,
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
          {
            type: 'http',
            name: 'delete_item',
            method: 'POST',
            url: `${provider.url}/tools/delete/{id}`,
            parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
            requiresApproval: true,
          },
        ],
        mcpServers: [{ name: 'calc', url: mcp.url, headerSecrets: { Authorization: 'mcp-key' } }],
      },
    });
    expect(v.status, v.text).toBe(201);
    expect((await api('POST', `/agents/${agent}/versions/1.0.0/promote`)).status).toBe(200);
    expect(
      (await api('POST', '/deployments/demo-deployment/agents', { agentId: agent, settings: { a2aEnabled: true } }))
        .status,
    ).toBe(201);
  }, 180_000);

  afterAll(async () => {
    await cluster?.stopAll();
    await provider?.close();
    await mcp?.close();
  }, 120_000);

  it('message/stream: deltas from the provider as append artifact-updates; the key reached the provider', async () => {
    const r = await sse(
      endpoint(),
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'message/stream',
        params: { message: textMessage('stream: alpha beta gamma delta') },
      },
      { key: sut.a2aKey },
    );
    const updates = r.frames.map((f) => f.data.result).filter((x) => x.kind === 'artifact-update');
    expect(updates.length).toBeGreaterThanOrEqual(4);
    expect(updates.map((u) => u.artifact.parts[0].text).join('')).toBe('alpha beta gamma delta');
    expect(r.frames.at(-1)!.data.result.status.state).toBe('completed');
    expect(provider.requests.at(-1)!.authorization).toBe(`Bearer ${SECRET}`);
  });

  it('a tool call through the runner process egress', async () => {
    const task = await send(textMessage('weather Oslo'));
    expect(task.status.state).toBe('completed');
    expect(statusText(task)).toContain('"city":"Oslo"');
  });

  it('an MCP tool call from the runner process (the bundled SDK, the token opened there); the session ends', async () => {
    const task = await send(textMessage('call calc__add {"a":40,"b":2}'));
    expect(task.status.state).toBe('completed');
    expect(statusText(task)).toBe('Tool said: {"result":"42"}');
    expect(mcp.calls.at(-1)).toEqual({ tool: 'add', args: { a: 40, b: 2 }, authorization: `Bearer ${MCP_TOKEN}` });
    await expect.poll(() => mcp.openSessions).toBe(0);
  });

  it('an approval survives a restart of every runner; the reply resumes from the stored state', async () => {
    const before = provider.toolCalls.length;
    const paused = await send(textMessage('delete row-3'));
    expect(paused.status.state).toBe('input-required');
    await Promise.all([cluster.restart('runner-1'), cluster.restart('runner-2')]);
    const done = await send(textMessage('approve', { taskId: paused.id, contextId: paused.contextId }));
    expect(done.status.state).toBe('completed');
    expect(provider.toolCalls.slice(before).map((c) => c.path)).toEqual(['/tools/delete/row-3']);
  }, 60_000);

  it('an approval rejected after every runner was killed: the new runners resume and the tool is never called', async () => {
    const before = provider.toolCalls.length;
    const paused = await send(textMessage('delete row-4'));
    expect(paused.status.state).toBe('input-required');
    expect(statusText(paused)).toMatch(/Approval needed: the agent wants to call "delete_item"/);
    await Promise.all([cluster.kill('runner-1'), cluster.kill('runner-2')]);
    await Promise.all([cluster.restart('runner-1'), cluster.restart('runner-2')]);
    const done = await send(textMessage('reject', { taskId: paused.id, contextId: paused.contextId }));
    expect(done.status.state).toBe('completed');
    expect(statusText(done)).toContain('the user rejected this call');
    expect(provider.toolCalls.length).toBe(before); // rejected: never called
  }, 120_000);

  it('tasks/cancel during a model stream aborts the provider request in the runner process', async () => {
    let taskId = '';
    await sse(
      endpoint(),
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'message/stream',
        params: { message: textMessage('slow: a b c d e f g h i j k l') },
      },
      {
        key: sut.a2aKey,
        stopAfter: (f) => {
          taskId ||= f.data.result?.taskId ?? f.data.result?.id ?? '';
          return f.data.result?.kind === 'artifact-update';
        },
      },
    );
    expect(taskId).not.toBe('');
    const seen = provider.requests.at(-1)!;
    const canceled = await rpc(
      endpoint(),
      { jsonrpc: '2.0', id: 3, method: 'tasks/cancel', params: { id: taskId } },
      { key: sut.a2aKey },
    );
    answers.push(canceled.text);
    expect(canceled.body.result.status.state).toBe('canceled');
    await eventually(async () => Promise.resolve(seen.aborted ? true : undefined), 10_000);
    const got = await rpc(
      endpoint(),
      { jsonrpc: '2.0', id: 4, method: 'tasks/get', params: { id: taskId } },
      { key: sut.a2aKey },
    );
    answers.push(got.text);
    expect(got.body.result.status.state).toBe('canceled');
    expect(answerText(got.body.result).length).toBeLessThan('a b c d e f g h i j k l'.length);
  });

  it('provider 429 and 500: retried with backoff, then failed with a reason to act on', async () => {
    let before = provider.requests.length;
    const limited = await send(textMessage('fail429 please'));
    expect(limited.status.state).toBe('failed');
    expect(statusText(limited)).toMatch(
      /rate limiting this agent \(HTTP 429\) after 2 attempt\(s\): Rate limit reached/,
    );
    expect(provider.requests.length - before).toBe(2); // maxRetries: 1
    before = provider.requests.length;
    const failing = await send(textMessage('fail500 always'));
    expect(failing.status.state).toBe('failed');
    expect(statusText(failing)).toMatch(/provider failed \(HTTP 500\) after 2 attempt\(s\): upstream overloaded/);
    expect(provider.requests.length - before).toBe(2);
  });

  it('provider 401: failed at once, naming the key secret, the key quoted by the provider redacted', async () => {
    const before = provider.requests.length;
    const task = await send(textMessage('fail401'));
    expect(task.status.state).toBe('failed');
    expect(statusText(task)).toMatch(/refused the credentials \(HTTP 401\).*Check the API key secret/);
    expect(statusText(task)).toContain('[redacted]');
    expect(provider.requests.length - before).toBe(1); // not retried
  });

  it('a provider that hangs: failed after requestTimeoutMs, never left working', async () => {
    const task = await send(textMessage('hang forever'));
    expect(task.status.state).toBe('failed');
    expect(statusText(task)).toMatch(/did not answer within 5000 ms \(requestTimeoutMs\)/);
  });

  it('the secret is in no API answer and no process log', () => {
    for (const a of answers) expect(a).not.toContain(SECRET);
    for (const a of answers) expect(a).not.toContain(MCP_TOKEN);
    const logs = readdirSync(cluster.logDir).map((f) => readFileSync(join(cluster.logDir, f), 'utf8'));
    expect(logs.join('\n')).toContain('model usage');
    for (const l of logs) expect(l).not.toContain(SECRET);
    for (const l of logs) expect(l).not.toContain(MCP_TOKEN);
  });
});
