import { Writable } from 'node:stream';
import { inMemoryEngines, startSystem, type System } from '@a2a-inbound/embedded';
import { createLogger } from '@a2a-inbound/logger';
import { rpc, textMessage } from '@a2a-inbound/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, uid } from '../management/helpers';
import { TestMcpServer } from './mcp-server';
import { ScriptedProvider } from './scripted-provider';

/**
 * MCP tool servers of the `model` runtime end to end in the embedded layout: the definition through the
 * management API, a real MCP server (@modelcontextprotocol/sdk) behind a token secret, the scripted
 * OpenAI-compatible provider calling its tools, the A2A surface through the gateway.
 */
const MCP_TOKEN = 'mcp-Tk-4Hq9-never-shown-77a1';
const DEPLOYMENT = 'demo-deployment';
const SECRETS_KEY = Buffer.alloc(32, 9).toString('base64');

describe('model runtime with MCP tool servers (embedded)', () => {
  let provider: ScriptedProvider;
  let mcp: TestMcpServer;
  let system: System;
  let base: string;
  let admin: string;
  let key: string;
  const logLines: string[] = [];
  const answers: string[] = [];

  const api = async (method: string, path: string, body?: unknown) => {
    const r = await http(base, method, `/api/v1${path}`, { token: admin, ...(body !== undefined ? { body } : {}) });
    answers.push(r.text);
    return r;
  };
  const send = async (agentId: string, message: Record<string, unknown>) => {
    const r = await rpc(
      `${base}/agents/${agentId}/a2a`,
      { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message, configuration: { blocking: true } } },
      { key },
    );
    answers.push(r.text);
    return r.body.result;
  };
  const statusText = (task: any): string => (task.status.message?.parts ?? []).map((p: any) => p.text).join('');
  const mcpServer = (extra: Record<string, unknown> = {}) => ({
    name: 'tools',
    url: mcp.url,
    headerSecrets: { Authorization: 'mcp-token' },
    ...extra,
  });
  const config = (servers: Record<string, unknown>[]) => ({
    baseUrl: `${provider.url}/v1`,
    model: 'scripted-1',
    stream: false,
    maxRetries: 0,
    mcpServers: servers,
  });

  async function createAgent(): Promise<string> {
    const created = await api('POST', '/agents', {
      name: uid('Mcp'),
      description: 'A model agent with MCP tools',
      type: 'AI Agent',
      skills: [{ id: 'chat', name: 'Chat', description: 'Chats', tags: ['model'], examples: ['hi'] }],
    });
    expect(created.status).toBe(201);
    return created.body.id as string;
  }

  async function modelAgent(servers: Record<string, unknown>[]): Promise<string> {
    const id = await createAgent();
    const v = await api('POST', `/agents/${id}/versions`, {
      version: '1.0.0',
      runtime: 'model',
      runtimeConfig: config(servers),
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

  beforeAll(async () => {
    provider = await new ScriptedProvider().start();
    mcp = await new TestMcpServer({ token: MCP_TOKEN }).start();
    const capture = new Writable({
      write(chunk: Buffer, _enc, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    });
    system = await startSystem({
      env: { PORT: '0', HOST: '127.0.0.1', SECRETS_KEY, EGRESS_ALLOW_CIDRS: '127.0.0.1/32' },
      engines: inMemoryEngines(),
      log: createLogger({ service: 'test', level: 'debug', destination: capture }),
    });
    base = system.baseUrl;
    admin = system.tasks.seed!.credentials!.adminToken;
    key = system.tasks.seed!.credentials!.a2aKey;
    const put = await api('PUT', '/secrets/mcp-token', { value: `Bearer ${MCP_TOKEN}` });
    expect(put.status, put.text).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await system?.close();
    await mcp?.close();
    await provider?.close();
  }, 60_000);

  it('message/send: the model calls an MCP tool (token by secret) and answers with its result', async () => {
    const agent = await modelAgent([mcpServer()]);
    const closed = mcp.closed.length;
    const task = await send(agent, textMessage('call tools__add {"a":19,"b":23}'));
    expect(task.status.state).toBe('completed');
    expect(statusText(task)).toBe('Tool said: {"result":"42"}');
    expect(mcp.calls.at(-1)).toEqual({ tool: 'add', args: { a: 19, b: 23 }, authorization: `Bearer ${MCP_TOKEN}` });
    const offered = provider.requests.at(-1)!.body.tools!.map((t) => t.function.name);
    expect(offered).toEqual(expect.arrayContaining(['tools__add', 'tools__lookup']));
    await expect.poll(() => mcp.closed.length).toBe(closed + 1); // the session ended with the run
  });

  it('an MCP tool error is visible to the model; the task completes', async () => {
    const agent = await modelAgent([mcpServer()]);
    const task = await send(agent, textMessage('call tools__lookup {"key":"throw"}'));
    expect(task.status.state).toBe('completed');
    expect(statusText(task)).toContain('the lookup backend is down');
  });

  it('an approval-marked MCP tool pauses in input-required; "approve" on the same task calls it', async () => {
    const agent = await modelAgent([mcpServer({ approval: ['lookup'] })]);
    const before = mcp.calls.length;
    const paused = await send(agent, textMessage('call tools__lookup {"key":"k-7"}'));
    expect(paused.status.state).toBe('input-required');
    expect(statusText(paused)).toMatch(/Approval needed: the agent wants to call "tools__lookup"/);
    expect(mcp.calls.length).toBe(before);
    const done = await send(agent, textMessage('approve', { taskId: paused.id, contextId: paused.contextId }));
    expect(done.status.state).toBe('completed');
    expect(statusText(done)).toBe('Tool said: {"result":"value of k-7"}');
  });

  it('an MCP server that cannot be reached fails the task with a clear reason, never left working', async () => {
    const agent = await modelAgent([mcpServer({ url: 'http://127.0.0.1:9/mcp', timeoutMs: 2_000 })]);
    const task = await send(agent, textMessage('hi'));
    expect(task.status.state).toBe('failed');
    expect(statusText(task)).toMatch(/MCP server "tools" \(http:\/\/127\.0\.0\.1:9\/mcp\) could not be used/);
  });

  it('refused at creation: a private MCP URL off the allow-list, an unknown secret, duplicate names (400)', async () => {
    const id = await createAgent();
    const cases: [Record<string, unknown>[], string, RegExp][] = [
      [[mcpServer({ url: 'https://10.1.2.3/mcp' })], 'runtimeConfig.mcpServers[0].url', /10\.1\.2\.3 is private/],
      [
        [mcpServer({ headerSecrets: { Authorization: 'nope' } })],
        'runtimeConfig.mcpServers[0].headerSecrets.Authorization',
        /secret "nope" does not exist/,
      ],
      [[mcpServer(), mcpServer()], 'runtimeConfig.mcpServers[1].name', /duplicate MCP server name "tools"/],
    ];
    let n = 0;
    for (const [servers, path, reason] of cases) {
      const r = await api('POST', `/agents/${id}/versions`, {
        version: `0.0.${n++}`,
        runtime: 'model',
        runtimeConfig: config(servers),
      });
      expect(r.status, r.text).toBe(400);
      expect(r.body.error.code).toBe('INVALID_PARAMS');
      expect(r.body.error.details.problems).toEqual(
        expect.arrayContaining([{ path, reason: expect.stringMatching(reason) }]),
      );
    }
    expect((await api('GET', `/agents/${id}`)).body.versions).toEqual([]);
  });

  it('the MCP token is in no API answer and no log line', () => {
    expect(answers.length).toBeGreaterThan(10);
    for (const a of answers) expect(a).not.toContain(MCP_TOKEN);
    for (const l of logLines) expect(l).not.toContain(MCP_TOKEN);
  });
});
