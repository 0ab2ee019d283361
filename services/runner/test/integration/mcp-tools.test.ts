import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseModelConfig, type McpServerDefinition } from '@a2a-inbound/agent-definitions';
import { silentLogger } from '@a2a-inbound/logger';
import { createEgressAgent, egressFetch, EgressPolicy } from '@a2a-inbound/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpConnectError, McpSessions, resultText } from '../../src/runtimes/mcp-tools';
import { createModelRuntime } from '../../src/runtimes/model-runtime';
import { fakeRun } from '../support/fake-run';
import { TestMcpServer } from '../../../../test/agents/mcp-server';
import { ScriptedProvider } from '../../../../test/agents/scripted-provider';

/**
 * MCP tool servers of the `model` runtime against a real MCP server (@modelcontextprotocol/sdk McpServer over
 * Streamable HTTP) and the scripted OpenAI-compatible provider, through the runner's guarded egress.
 */
const loopback = egressFetch(
  createEgressAgent({ policy: new EgressPolicy({ cidrs: ['127.0.0.1/32'], hosts: ['localhost'] }) }),
);
const strict = egressFetch(createEgressAgent({ policy: new EgressPolicy() }));

describe('MCP tool servers (model runtime)', () => {
  let mcp: TestMcpServer;
  let guarded: TestMcpServer;
  let provider: ScriptedProvider;

  beforeAll(async () => {
    mcp = await new TestMcpServer().start();
    guarded = await new TestMcpServer({ token: 'mcp-tok-123456' }).start();
    provider = await new ScriptedProvider().start();
  });
  afterAll(async () => {
    await mcp?.close();
    await guarded?.close();
    await provider?.close();
  });

  const server = (extra: Record<string, unknown> = {}): McpServerDefinition =>
    parseModelConfig({
      baseUrl: 'https://x.example',
      model: 'm',
      mcpServers: [{ name: 'calc', url: mcp.url, ...extra }],
    }).mcpServers[0]!;
  const open = (def: McpServerDefinition, fetch = loopback, signal = new AbortController().signal) =>
    McpSessions.open([def], { fetch, log: silentLogger(), signal, headers: (s) => ({ ...s.headerSecrets }) });

  it('lists the tools once, namespaced server__tool with the JSON Schema of the server; allowTools and approval', async () => {
    const s = await open(server({ approval: ['lookup'] }));
    expect([...s.tools.keys()].sort()).toEqual(['calc__add', 'calc__lookup']);
    const add = s.tools.get('calc__add')!;
    expect(add).toMatchObject({
      server: 'calc',
      toolName: 'add',
      description: 'Adds two numbers',
      requiresApproval: false,
    });
    expect(add.parameters).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
    });
    expect(add.parameters).not.toHaveProperty('$schema');
    expect(s.tools.get('calc__lookup')!.requiresApproval).toBe(true);
    await s.close();
    const only = await open(server({ allowTools: ['add'], approval: true }));
    expect([...only.tools.keys()]).toEqual(['calc__add']);
    expect(only.tools.get('calc__add')!.requiresApproval).toBe(true);
    await only.close();
  });

  it('offers at most maxTools MCP tools over all servers (the rest are left out)', async () => {
    const defs = parseModelConfig({
      baseUrl: 'https://x.example',
      model: 'm',
      mcpServers: [
        { name: 'one', url: mcp.url },
        { name: 'two', url: mcp.url },
      ],
    }).mcpServers;
    const s = await McpSessions.open(defs, {
      fetch: loopback,
      log: silentLogger(),
      signal: new AbortController().signal,
      headers: () => ({}),
      maxTools: 3,
    });
    expect([...s.tools.keys()]).toEqual(['one__add', 'one__lookup', 'two__add']);
    await s.close();
  });

  it('calls tools; isError, a throwing tool, bad arguments, timeouts and the result cap are answers the model reads', async () => {
    const s = await open(server({ timeoutMs: 300, maxResultBytes: 1_000 }));
    expect(JSON.parse(await s.call('calc__add', '{"a":2,"b":3}'))).toEqual({ result: '5' });
    expect(JSON.parse(await s.call('calc__lookup', '{"key":"missing"}'))).toEqual({ error: 'no such key: missing' });
    expect(JSON.parse(await s.call('calc__lookup', '{"key":"throw"}')).error).toContain('the lookup backend is down');
    expect(JSON.parse(await s.call('calc__add', '{"a":"two","b":3}'))).toEqual({
      error: 'argument "a" must be of type number',
    });
    expect(JSON.parse(await s.call('calc__add', '{not json'))).toEqual({ error: 'the arguments are not valid JSON' });
    expect(JSON.parse(await s.call('calc__nope', '{}'))).toEqual({ error: 'there is no tool named "calc__nope"' });
    expect(JSON.parse(await s.call('calc__lookup', '{"key":"slow"}'))).toEqual({
      error: 'the tool did not answer within 300 ms',
    });
    const big = JSON.parse(await s.call('calc__lookup', '{"key":"big"}')) as { result: string; truncated: string };
    expect(big.result).toHaveLength(1_000);
    expect(big.truncated).toBe('the result was cut at 1000 bytes');
    await s.close();
  });

  it('result content as the model reads it: text, binary described, resources by text or link', () => {
    expect(
      resultText([
        { type: 'text', text: 'a' },
        { type: 'image', mimeType: 'image/png', data: Buffer.from('12345').toString('base64') },
        { type: 'resource', resource: { uri: 'file:///r.txt', text: 'body' } },
        { type: 'resource_link', name: 'doc', uri: 'https://x.example/doc' },
      ]),
    ).toBe(
      'a\n[image (image/png), 5 bytes; not shown to you]\nResource file:///r.txt:\nbody\n[resource link: doc https://x.example/doc]',
    );
  });

  it('closes the session at the end (the server sees it ended)', async () => {
    const before = mcp.closed.length;
    const s = await open(server());
    expect(mcp.openSessions).toBeGreaterThan(0);
    await s.close();
    expect(mcp.closed.length).toBe(before + 1);
  });

  it('closes the session when the run is canceled, a call in flight included', async () => {
    const abort = new AbortController();
    const s = await open(server(), loopback, abort.signal);
    const sid = mcp.opened.at(-1)!;
    const slowCalls = mcp.calls.filter((c) => (c.args as { key?: string }).key === 'slow').length;
    const call = s.call('calc__lookup', '{"key":"slow"}');
    await expect
      .poll(() => mcp.calls.filter((c) => (c.args as { key?: string }).key === 'slow').length)
      .toBe(slowCalls + 1);
    const t0 = Date.now();
    abort.abort();
    await expect(call).rejects.toThrow();
    expect(Date.now() - t0).toBeLessThan(1_000);
    await expect.poll(() => mcp.closed).toContain(sid);
  });

  it('refuses a server the egress policy blocks, with a reason naming the allow-list', async () => {
    const err = await open(server(), strict).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpConnectError);
    expect((err as Error).message).toMatch(
      /MCP server "calc" .* is not allowed by the egress policy .*EGRESS_ALLOW_CIDRS/,
    );
  });

  it('a server that never answers: a connect error after timeoutMs naming the setting', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp`;
      const t0 = Date.now();
      const err = await open(server({ url, timeoutMs: 300 })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(McpConnectError);
      expect((err as Error).message).toBe(
        `MCP server "calc" (${url}) did not answer within 300 ms (timeoutMs of the server in the agent version).`,
      );
      expect(Date.now() - t0).toBeLessThan(3_000);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  it('header secrets reach the server; wrong credentials are a clear connect error', async () => {
    const def = (token: string) =>
      parseModelConfig({
        baseUrl: 'https://x.example',
        model: 'm',
        mcpServers: [{ name: 'sec', url: guarded.url, headerSecrets: { Authorization: token } }],
      }).mcpServers[0]!;
    const ok = await open(def('Bearer mcp-tok-123456'));
    expect(JSON.parse(await ok.call('sec__add', '{"a":1,"b":2}'))).toEqual({ result: '3' });
    expect(guarded.calls.at(-1)!.authorization).toBe('Bearer mcp-tok-123456');
    await ok.close();
    const err = await open(def('Bearer wrong')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpConnectError);
    expect((err as Error).message).toContain('refused the credentials; check its headerSecrets');
    expect((err as Error).message).not.toContain('wrong');
  });

  describe('in the model runtime', () => {
    const runtime = createModelRuntime({ fetch: loopback, log: silentLogger() });
    const config = (mcpServer: Record<string, unknown> = {}) => ({
      baseUrl: `${provider.url}/v1`,
      model: 'scripted-1',
      stream: false,
      maxRetries: 0,
      mcpServers: [{ name: 'calc', url: mcp.url, ...mcpServer }],
    });

    it('the model calls an MCP tool and answers with its result; the tools are offered; the session ends with the run', async () => {
      const closed = mcp.closed.length;
      const run = fakeRun({ config: config(), text: 'call calc__add {"a":20,"b":22}' });
      await runtime(run.ctx);
      expect(run.final()).toMatchObject({ state: 'completed', text: 'Tool said: {"result":"42"}' });
      const offered = provider.requests.at(-1)!.body.tools!.map((t) => t.function.name);
      expect(offered).toEqual(expect.arrayContaining(['calc__add', 'calc__lookup']));
      expect(mcp.closed.length).toBe(closed + 1);
    });

    it('a tool error is visible to the model and the task still completes', async () => {
      const run = fakeRun({ config: config(), text: 'call calc__lookup {"key":"missing"}' });
      await runtime(run.ctx);
      expect(run.final()).toMatchObject({ state: 'completed', text: 'Tool said: {"error":"no such key: missing"}' });
    });

    it('an approval-marked MCP tool stops at input-required; the approval resumes and calls it', async () => {
      const first = fakeRun({ config: config({ approval: ['lookup'] }), text: 'call calc__lookup {"key":"k1"}' });
      await runtime(first.ctx);
      const paused = first.final()!;
      expect(paused.state).toBe('input-required');
      expect(paused.text).toContain('"calc__lookup"');
      expect(mcp.calls.some((c) => (c.args as { key?: string }).key === 'k1')).toBe(false);
      const reply = fakeRun({
        config: config({ approval: ['lookup'] }),
        text: 'approve',
        taskId: first.ctx.taskId,
        contextId: first.ctx.contextId,
        history: [first.ctx.message, paused.message!],
      });
      await runtime(reply.ctx);
      expect(reply.final()).toMatchObject({ state: 'completed', text: 'Tool said: {"result":"value of k1"}' });
    });

    it('tasks/cancel during an MCP call aborts it and ends the session', async () => {
      const run = fakeRun({ config: config(), text: 'call calc__lookup {"key":"slow"}' });
      const slow = () => mcp.calls.filter((c) => (c.args as { key?: string }).key === 'slow').length;
      const before = slow();
      const done = runtime(run.ctx).then(
        () => 'resolved',
        () => 'rejected',
      );
      await expect.poll(slow).toBe(before + 1);
      const sid = mcp.opened.at(-1)!;
      const t0 = Date.now();
      run.cancel();
      await done;
      expect(Date.now() - t0).toBeLessThan(1_000);
      expect(run.statuses.map((x) => x.state)).not.toContain('completed');
      await expect.poll(() => mcp.closed).toContain(sid);
    });

    it('an unreachable MCP server fails the run with a clear reason (never left working)', async () => {
      const run = fakeRun({ config: config({ url: 'http://127.0.0.1:9/mcp', timeoutMs: 2_000 }), text: 'hi' });
      await runtime(run.ctx);
      expect(run.final()!.state).toBe('failed');
      expect(run.final()!.text).toMatch(
        /^MCP server "calc" \(http:\/\/127\.0\.0\.1:9\/mcp\) could not be used: .*Check its url/,
      );
    });

    it('a missing header secret fails the run naming the secret', async () => {
      const run = fakeRun({
        config: config({ headerSecrets: { Authorization: 'mcp-token' } }),
        text: 'hi',
        secrets: {},
      });
      await runtime(run.ctx);
      expect(run.final()!.state).toBe('failed');
      expect(run.final()!.text).toContain('mcp-token');
    });
  });
});
