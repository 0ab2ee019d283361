import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressAgent, EgressPolicy, type EgressAgent } from '@a2a-inbound/runtime';
import { startContractAgent, type ContractAgent } from '@a2a-inbound/testing';
import type { AgentRuntime } from '../../src/domain/agent-runtime';
import { egressRuntimes } from '../../src/runtimes';
import { fakeRun } from '../support/fake-run';

describe('runtime http: the JSON-in, JSON-or-SSE-out contract (docs/agent-http-contract.md)', () => {
  let agent: ContractAgent;
  let egress: EgressAgent;
  let strictEgress: EgressAgent;
  let runtime: AgentRuntime;
  beforeAll(async () => {
    agent = await startContractAgent();
    egress = createEgressAgent({ policy: new EgressPolicy({ hosts: [], cidrs: ['127.0.0.1/32'] }) });
    strictEgress = createEgressAgent();
    runtime = egressRuntimes(egress).http!;
  });
  afterAll(async () => {
    await agent.close();
    await egress.close();
    await strictEgress.close();
  });
  const url = (path: string): string => `${agent.base}${path}`;

  it('JSON answer: the request carries the turn (message, history, ids); the answer is the artifact', async () => {
    const history = [
      {
        kind: 'message' as const,
        role: 'user' as const,
        messageId: 'h1',
        parts: [{ kind: 'text' as const, text: 'earlier' }],
      },
    ];
    const run = fakeRun({ config: { url: url('/json'), tokenSecret: 'tok-9' }, text: 'hello', history });
    await runtime(run.ctx);
    expect(run.final()?.state).toBe('completed');
    expect(run.artifactText()).toBe('json agent heard: hello (history 1)');
    expect(run.artifacts.at(-1)).toMatchObject({ name: 'agent_response', lastChunk: true });
    const req = agent.received.at(-1)!;
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers.authorization).toBe('Bearer tok-9');
    expect(req.headers['a2a-inbound-contract']).toBe('1');
    expect(req.body).toMatchObject({
      contract: '1',
      taskId: run.ctx.taskId,
      contextId: run.ctx.contextId,
      message: {
        messageId: `${run.ctx.taskId}:${run.ctx.message.messageId}`,
        role: 'user',
        parts: [{ kind: 'text', text: 'hello' }],
      },
      history: [{ messageId: 'h1', role: 'user', parts: [{ kind: 'text', text: 'earlier' }] }],
    });
    // The configuration (and its secret) is never sent in the body.
    expect(JSON.stringify(req.body)).not.toContain('tok-9');
  });

  it('SSE answer: deltas become appended artifact chunks, status a progress message, final completes', async () => {
    const run = fakeRun({ config: { url: url('/sse') }, text: 'world' });
    await runtime(run.ctx);
    expect(run.statuses.map((s) => s.state)).toEqual(['working', 'completed']);
    expect(run.statuses[0]!.message!.parts).toEqual([{ kind: 'text', text: 'thinking' }]);
    expect(run.artifacts.map((a) => a.append)).toEqual([false, true, true, true]);
    expect(run.artifacts.at(-1)!.lastChunk).toBe(true);
    expect(run.artifactText()).toBe('Hello world');
  });

  it('input-required with resume state; the reply on the same task gets the state back', async () => {
    const first = fakeRun({ config: { url: url('/ask') }, text: 'book' });
    await runtime(first.ctx);
    const prompt = first.final()!;
    expect(prompt).toMatchObject({ state: 'input-required', text: 'Which city?' });
    const reply = fakeRun({
      config: { url: url('/ask') },
      text: 'Oslo',
      taskId: first.ctx.taskId,
      contextId: first.ctx.contextId,
      history: [first.ctx.message, prompt.message!],
    });
    await runtime(reply.ctx);
    expect(agent.received.at(-1)!.body.resume).toEqual({ step: 2, asked: 'book' });
    expect(reply.artifactText()).toBe('Booked {"step":2,"asked":"book"} in Oslo');
    expect(reply.final()?.state).toBe('completed');
  });

  it.each([
    ['/fail', 'The HTTP agent failed: the model is overloaded'],
    ['/error-event', 'The HTTP agent failed: tool crashed'],
    ['/500', 'answered 500: {"error":"database down"}'],
    ['/bad-json', 'The HTTP agent answered invalid JSON.'],
    ['/no-final', 'ended its event stream without a final event'],
    ['/404', 'answered 404'],
  ])('%s ends the task failed with a reason', async (path, reason) => {
    const run = fakeRun({ config: { url: url(path) } });
    await runtime(run.ctx);
    expect(run.final()?.state).toBe('failed');
    expect(run.final()?.text).toContain(reason);
  });

  it('an answer over maxResponseBytes is refused', async () => {
    const run = fakeRun({ config: { url: url('/huge'), maxResponseBytes: 64 * 1024 } });
    await runtime(run.ctx);
    expect(run.final()?.text).toBe("The HTTP agent's answer is larger than 65536 bytes.");
  });

  it('a silent agent times out (failed, the connection closed); a cancel closes the connection', async () => {
    const run = fakeRun({ config: { url: url('/hang'), idleTimeoutMs: 1_000 } });
    await runtime(run.ctx);
    expect(run.final()?.text).toContain('did not answer in time (nothing received for 1000 ms)');
    await expect.poll(() => agent.disconnected.length).toBe(1);
    const canceled = fakeRun({ config: { url: url('/hang') } });
    const done = runtime(canceled.ctx).then(
      () => 'returned',
      () => 'threw',
    );
    await expect.poll(() => agent.received.filter((r) => r.path === '/hang').length).toBe(2);
    canceled.cancel();
    expect(await done).toBe('threw');
    expect(canceled.final()).toBeUndefined();
    await expect.poll(() => agent.disconnected.length).toBe(2);
  });

  it('refuses a private endpoint without the operator allow-list, and an invalid configuration', async () => {
    const before = agent.received.length;
    const run = fakeRun({ config: { url: url('/json') } });
    await egressRuntimes(strictEgress).http!(run.ctx);
    expect(run.final()?.text).toContain('not on the operator allow-list');
    const bad = fakeRun({ config: { url: url('/json'), timeoutMs: 5, extra: true } });
    await runtime(bad.ctx);
    expect(bad.final()?.text).toContain('runtimeConfig.timeoutMs must be an integer from 1000 to 3600000');
    expect(bad.final()?.text).toContain('runtimeConfig.extra is not a known field');
    expect(agent.received.length).toBe(before);
  });

  it('SSE comments keep a quiet agent alive past idleTimeoutMs', async () => {
    const run = fakeRun({ config: { url: url('/keepalive'), idleTimeoutMs: 1_000 } });
    await runtime(run.ctx);
    expect(run.final()?.state).toBe('completed');
    expect(run.artifactText()).toBe('done after 1.5 s');
  });
});
