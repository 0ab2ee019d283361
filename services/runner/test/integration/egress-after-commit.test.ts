import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressAgent, EgressPolicy, type EgressAgent } from '@a2a-inbound/runtime';
import type { CommitBarrier } from '@a2a-inbound/ports';
import { startContractAgent, type ContractAgent } from '@a2a-inbound/testing';
import { egressRuntimes } from '../../src/runtimes';
import { fakeRun } from '../support/fake-run';

/**
 * ADR 0069: a run's outbound call waits for the commit of what was written before it (the durable embedded
 * mode's writes resolve before they are durable), so an upstream never acts on a run a crash could undo.
 */
describe('runner egress behind the commit barrier', () => {
  let agent: ContractAgent;
  let egress: EgressAgent;
  beforeAll(async () => {
    agent = await startContractAgent();
    egress = createEgressAgent({ policy: new EgressPolicy({ hosts: [], cidrs: ['127.0.0.1/32'] }) });
  });
  afterAll(async () => {
    await agent.close();
    await egress.close();
  });

  it('an http agent is called only once the pending commit is made', async () => {
    let commit!: () => void;
    let pending: Promise<void> | undefined = new Promise<void>((resolve) => (commit = resolve));
    const commits: CommitBarrier = { committed: () => pending };
    const runtime = egressRuntimes(egress, undefined, commits).http!;
    const before = agent.received.length;
    const run = fakeRun({ config: { url: `${agent.base}/json` }, text: 'after the commit' });
    const done = runtime(run.ctx);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(agent.received.length).toBe(before);
    commit();
    pending = undefined;
    await done;
    expect(agent.received.length).toBe(before + 1);
    expect(run.final()?.state).toBe('completed');
  });

  it('a failed commit stops the call: the agent is never reached', async () => {
    const commits: CommitBarrier = { committed: () => Promise.reject(new Error('injected: commit failed')) };
    const runtime = egressRuntimes(egress, undefined, commits).http!;
    const before = agent.received.length;
    const run = fakeRun({ config: { url: `${agent.base}/json` }, text: 'never sent' });
    await runtime(run.ctx).catch(() => undefined);
    expect(agent.received.length).toBe(before);
    expect(run.final()?.state).not.toBe('completed');
  });
});
