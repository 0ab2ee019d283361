import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressAgent, EgressPolicy, type EgressAgent } from '@a2a-inbound/runtime';
import { startUpstreamAgents, type UpstreamAgents } from '@a2a-inbound/testing';
import { egressRuntimes } from '../../src/runtimes';
import { UPSTREAM_KEY } from '../../src/runtimes/a2a-upstream';
import type { AgentRuntime } from '../../src/domain/agent-runtime';
import { fakeRun } from '../support/fake-run';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('runtime a2a-upstream against real @a2a-js/sdk agents', () => {
  let up: UpstreamAgents;
  let agent: EgressAgent;
  let strictAgent: EgressAgent;
  let runtime: AgentRuntime;
  let strict: AgentRuntime;
  beforeAll(async () => {
    up = await startUpstreamAgents();
    agent = createEgressAgent({ policy: new EgressPolicy({ hosts: [], cidrs: ['127.0.0.0/8'] }) });
    strictAgent = createEgressAgent();
    runtime = egressRuntimes(agent)['a2a-upstream']!;
    strict = egressRuntimes(strictAgent)['a2a-upstream']!;
  });
  afterAll(async () => {
    await up.close();
    await agent.close();
    await strictAgent.close();
  });

  it('streams the upstream artifact deltas into ours and completes; text and stored files are forwarded', async () => {
    const run = fakeRun({
      config: { url: up.url('stream') },
      parts: [
        { kind: 'text', text: 'hi there' },
        {
          kind: 'file',
          file: { uri: 'urn:a2a-inbound:file:blob-1', name: 'notes.txt', mimeType: 'text/plain' },
          metadata: { 'a2a-inbound/fileId': 'blob-1', custom: 'kept' },
        },
      ],
      files: { 'blob-1': { data: new TextEncoder().encode('file body'), mimeType: 'text/plain', name: 'notes.txt' } },
    });
    await runtime(run.ctx);
    expect(run.final()?.state).toBe('completed');
    const deltas = run.artifacts.filter((a) => a.artifactId === 'answer');
    expect(deltas).toHaveLength(3);
    expect(deltas.map((d) => d.append)).toEqual([false, true, true]);
    expect(deltas.at(-1)?.lastChunk).toBe(true);
    expect(run.artifactText('answer')).toMatch(/^upstream heard: hi there files=notes\.txt:text\/plain:file body ctx=/);
    const sent = up.received.filter((r) => r.agent === 'stream').at(-1)!;
    // Ours per turn: deterministic (a re-run is the same message), never the caller's id alone.
    expect(sent.message.messageId).toBe(`${run.ctx.taskId}:${run.ctx.message.messageId}`);
    // Our internal metadata stays inside; the caller's own goes along.
    expect(sent.message.parts[1]?.metadata).toEqual({ custom: 'kept' });
    expect(sent.authorization).toBeUndefined();
  });

  it('reads the upstream card once, not per run (cached with the client)', async () => {
    const before = up.cardFetches.stream ?? 0;
    for (const text of ['one', 'two', 'three']) {
      const run = fakeRun({ config: { url: up.url('stream'), tokenSecret: 'cache-test' }, text });
      await runtime(run.ctx);
      expect(run.final()?.state).toBe('completed');
    }
    expect((up.cardFetches.stream ?? 0) - before).toBe(1);
  });

  it('input-required upstream → input-required here; the reply on our task continues the same upstream task', async () => {
    const first = fakeRun({ config: { url: up.url('input') }, text: 'book a table' });
    await runtime(first.ctx);
    const prompt = first.final()!;
    expect(prompt.state).toBe('input-required');
    expect(prompt.text).toBe('What is your name?');
    const ref = prompt.message!.metadata![UPSTREAM_KEY] as { taskId: string; contextId: string; state: string };
    expect(ref.state).toBe('input-required');
    expect(prompt.message!.taskId).toBe(first.ctx.taskId);
    const reply = fakeRun({
      config: { url: up.url('input') },
      text: 'Bob',
      taskId: first.ctx.taskId,
      contextId: first.ctx.contextId,
      history: [first.ctx.message, prompt.message!],
    });
    await runtime(reply.ctx);
    expect(reply.final()).toMatchObject({ state: 'completed', text: `Hello Bob (task ${ref.taskId})` });
    const sent = up.received.filter((r) => r.agent === 'input').at(-1)!;
    expect(sent.message.taskId).toBe(ref.taskId);
    expect(sent.message.contextId).toBe(ref.contextId);
  });

  it('a new task of the same conversation reuses the upstream context, not the finished upstream task', async () => {
    const first = fakeRun({ config: { url: up.url('input') }, text: 'one' });
    await runtime(first.ctx);
    const prompt = first.final()!.message!;
    const ref = prompt.metadata![UPSTREAM_KEY] as { taskId: string; contextId: string };
    const next = fakeRun({
      config: { url: up.url('stream') },
      text: 'two',
      contextId: first.ctx.contextId,
      history: [first.ctx.message, { ...prompt, metadata: { [UPSTREAM_KEY]: { ...ref, state: 'completed' } } }],
    });
    await runtime(next.ctx);
    expect(next.artifactText('answer')).toContain(`ctx=${ref.contextId}`);
    expect(up.received.at(-1)!.message.taskId).toBeUndefined();
  });

  it('an upstream failure ends the task failed with the upstream reason', async () => {
    const run = fakeRun({ config: { url: up.url('failing') } });
    await runtime(run.ctx);
    expect(run.final()).toMatchObject({ state: 'failed', text: 'upstream exploded: quota exhausted' });
  });

  it('a card without streaming: message/send, and its direct message is the answer', async () => {
    const run = fakeRun({ config: { url: up.url('blocking') }, text: 'ping' });
    await runtime(run.ctx);
    expect(run.final()).toMatchObject({ state: 'completed', text: 'direct answer to: ping' });
    expect(run.artifactText()).toBe('direct answer to: ping');
  });

  it('cancel of our task sends tasks/cancel upstream', async () => {
    const run = fakeRun({ config: { url: up.url('slow') } });
    const done = runtime(run.ctx).then(
      () => 'returned',
      () => 'threw',
    );
    await expect.poll(() => run.statuses.some((s) => s.state === 'working'), { timeout: 5_000 }).toBe(true);
    const upstreamTask = (run.statuses[0]!.message!.metadata![UPSTREAM_KEY] as { taskId: string }).taskId;
    run.cancel();
    expect(await done).toBe('threw');
    expect(up.canceled).toContain(upstreamTask);
    expect(run.final()).toBeUndefined(); // the tasks service records the cancel, not the runtime
  });

  it('a drain (the run handed back) does not cancel the upstream task: the re-run continues it', async () => {
    const run = fakeRun({ config: { url: up.url('slow') } });
    const done = runtime(run.ctx).then(
      () => 'returned',
      () => 'threw',
    );
    await expect.poll(() => run.statuses.some((s) => s.state === 'working'), { timeout: 5_000 }).toBe(true);
    const upstreamTask = (run.statuses[0]!.message!.metadata![UPSTREAM_KEY] as { taskId: string }).taskId;
    run.abort.abort(); // the runner's drain aborts without the cancel reason
    expect(await done).toBe('threw');
    expect(up.canceled).not.toContain(upstreamTask);
  });

  it('an upstream that goes silent past idleTimeoutMs ends failed with a timeout reason, never left working', async () => {
    const run = fakeRun({ config: { url: up.url('slow'), idleTimeoutMs: 1_000 } });
    await runtime(run.ctx);
    expect(run.final()?.state).toBe('failed');
    expect(run.final()?.text).toContain('did not answer in time (nothing received for 1000 ms)');
  });

  it('an unreachable upstream ends failed with a clear reason', async () => {
    const port = await closedPort();
    const run = fakeRun({ config: { url: `http://127.0.0.1:${port}/agents/x` } });
    await runtime(run.ctx);
    expect(run.final()?.state).toBe('failed');
    expect(run.final()?.text).toMatch(
      new RegExp(`^The upstream agent at 127\\.0\\.0\\.1:${port} failed: .*ECONNREFUSED`),
    );
  });

  it('the token goes in Authorization (or the named header) and never into a failure reason', async () => {
    const denied = fakeRun({ config: { url: up.url('secured'), tokenSecret: 'wrong-token-123' } });
    await runtime(denied.ctx);
    expect(denied.final()?.state).toBe('failed');
    expect(denied.final()?.text).toContain('401');
    expect(JSON.stringify(denied.statuses)).not.toContain('wrong-token-123');
    const ok = fakeRun({ config: { url: up.url('secured'), tokenSecret: 'upstream-token' } });
    await runtime(ok.ctx);
    expect(ok.final()).toMatchObject({ state: 'completed', text: 'secret handshake ok' });
    expect(up.received.at(-1)!.authorization).toBe('Bearer upstream-token');
    const keyed = fakeRun({ config: { url: up.url('stream'), tokenSecret: 'k-1', authHeader: 'X-Api-Key' } });
    await runtime(keyed.ctx);
    expect(up.received.at(-1)!.apiKey).toBe('k-1');
  });

  it('refuses a private upstream without the operator allow-list: failed, nothing sent', async () => {
    const before = up.received.length;
    const run = fakeRun({ config: { url: up.url('stream') } });
    await strict(run.ctx);
    expect(run.final()?.state).toBe('failed');
    expect(run.final()?.text).toContain('not on the operator allow-list');
    expect(up.received.length).toBe(before);
  });

  it('refuses at connect time a public-looking name that resolves to a private address', async () => {
    const rebinding = createEgressAgent({ resolve: async () => Promise.resolve(['127.0.0.1']) });
    try {
      const run = fakeRun({ config: { url: `https://agent.example.com:${up.port}/agents/stream` } });
      await egressRuntimes(rebinding)['a2a-upstream']!(run.ctx);
      expect(run.final()?.text).toContain('EGRESS_ALLOW_HOSTS / EGRESS_ALLOW_CIDRS');
    } finally {
      await rebinding.close();
    }
  });

  it('a card whose service URL names an address off the allow-list is refused at connect time', async () => {
    // The name is allow-listed (and resolves to loopback); the card it serves points at 127.0.0.1, which is not.
    const byName = createEgressAgent({
      policy: new EgressPolicy({ hosts: ['upstream.test'], cidrs: [] }),
      resolve: async () => Promise.resolve(['127.0.0.1']),
    });
    try {
      const before = up.received.length;
      const run = fakeRun({ config: { url: `http://upstream.test:${up.port}/agents/stream` } });
      await egressRuntimes(byName)['a2a-upstream']!(run.ctx);
      expect(run.final()?.state).toBe('failed');
      expect(run.final()?.text).toContain('127.0.0.1 (127.0.0.1) is a private address');
      expect(up.received.length).toBe(before);
    } finally {
      await byName.close();
    }
  });

  it('SSE keep-alive comments count as activity: a quiet but alive upstream is not timed out', async () => {
    // A hand-written A2A server: its stream sends only comments for 1.5 s, then the answer.
    const server = createHttpServer((req, res) => {
      if (req.method === 'GET') {
        const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            name: 'quiet',
            description: 'quiet',
            url: `${base}/rpc`,
            protocolVersion: '0.3.0',
            version: '1',
            capabilities: { streaming: true },
            defaultInputModes: ['text/plain'],
            defaultOutputModes: ['text/plain'],
            skills: [],
          }),
        );
        return;
      }
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        const { id } = JSON.parse(raw) as { id: number };
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const ping = setInterval(() => res.write(': ping\n\n'), 300);
        setTimeout(() => {
          clearInterval(ping);
          const result = {
            kind: 'message',
            role: 'agent',
            messageId: 'q1',
            parts: [{ kind: 'text', text: 'still here' }],
          };
          res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`);
        }, 1_500);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const run = fakeRun({ config: { url: `http://127.0.0.1:${port}/card.json`, idleTimeoutMs: 1_000 } });
      await runtime(run.ctx);
      expect(run.final()).toMatchObject({ state: 'completed', text: 'still here' });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
