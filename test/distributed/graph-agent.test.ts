import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Sut } from '@a2a-inbound/testing';
import { eventually } from '@a2a-inbound/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, uid } from '../management/helpers';
import { engineUrlsSet, startDistributed, type Cluster } from './cluster';

/**
 * A Task Agent graph whose runner dies between steps (issue 11): separate processes on Kafka, FerretDB and
 * Redis. The runner that holds the run is killed (SIGKILL) while the second step's HTTP call is in flight;
 * the other runner gets the redelivered request and resumes from the run checkpoint: the first step is not
 * called again, the interrupted step runs once more, and the run completes with every step's output once.
 */
describe.runIf(engineUrlsSet)('graph runtime: a runner dies between steps (distributed processes)', () => {
  let cluster: Cluster;
  let sut: Sut;
  let server: Server;
  let upstream = '';
  let admin = '';
  let agent = '';
  const calls: string[] = [];
  /** The first call of the slow step is held open (the runner is killed meanwhile). */
  const held: ServerResponse[] = [];

  const api = (method: string, path: string, body?: unknown) =>
    http(sut.baseUrl, method, `/api/v1${path}`, { token: admin, ...(body !== undefined ? { body } : {}) });
  const invoke = (method: string, path: string, body?: unknown) =>
    http(sut.baseUrl, method, `/agents/${agent}${path}`, {
      token: sut.invokeKey,
      ...(body !== undefined ? { body } : {}),
    });

  beforeAll(async () => {
    server = createServer((req, res) => {
      calls.push(req.url ?? '');
      req.resume();
      res.setHeader('content-type', 'application/json');
      if (req.url === '/slow' && calls.filter((c) => c === '/slow').length === 1) {
        held.push(res);
        return;
      }
      res.end(JSON.stringify({ at: req.url, n: calls.length }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    upstream = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    ({ cluster, sut } = await startDistributed({
      env: { EGRESS_ALLOW_CIDRS: '127.0.0.0/8', RUNNER_HEARTBEAT_MS: '500', RUNNER_LEASE_MS: '2000' },
    }));
    admin = cluster.credentials().adminToken!;
    const created = await api('POST', '/agents', {
      name: uid('Graph'),
      description: 'A graph that survives its runner',
      type: 'Task Agent',
      skills: [{ id: 'g', name: 'G', description: 'G', tags: [], examples: [] }],
    });
    expect(created.status, created.text).toBe(201);
    agent = created.body.id as string;
    const v = await api('POST', `/agents/${agent}/versions`, {
      version: '1.0.0',
      runtime: 'graph',
      runtimeConfig: {
        steps: [
          { id: 'first', kind: 'http', url: `${upstream}/first`, params: '{ "q": input.q }' },
          { id: 'slow', kind: 'http', method: 'POST', url: `${upstream}/slow`, timeoutMs: 60_000 },
          { id: 'last', kind: 'transform', expression: '{ "first": steps.first.body.at, "slow": steps.slow.body.at }' },
        ],
        edges: [
          { from: 'first', to: 'slow' },
          { from: 'slow', to: 'last' },
        ],
      },
    });
    expect(v.status, v.text).toBe(201);
    expect((await api('POST', `/agents/${agent}/versions/1.0.0/promote`)).status).toBe(200);
    expect((await api('POST', '/deployments/demo-deployment/agents', { agentId: agent })).status).toBe(201);
  }, 180_000);

  afterAll(async () => {
    for (const r of held) r.destroy();
    await cluster?.stopAll();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  }, 120_000);

  it('the run resumes at the interrupted step on another runner; completed steps are not run again', async () => {
    const started = await invoke('POST', '/runs', { data: { q: 'x' } });
    expect(started.status, started.text).toBe(202);
    const runId = started.body.run_id as string;
    // The first step is done and the second is in flight: find the runner that holds the run, kill it.
    await eventually(async () => Promise.resolve(held.length === 1 ? true : undefined), 30_000);
    const owner = await eventually(async () => {
      for (const name of ['runner-1', 'runner-2']) {
        const text = readFileSync(join(cluster.logDir, `${name}.log`), 'utf8');
        if (text.includes(runId) && text.includes('run started')) return Promise.resolve(name);
      }
      return Promise.resolve(undefined);
    }, 20_000);
    // The first step's result travels runner → bus → tasks while the second step is already calling: wait until
    // the stored run shows it.
    const before = await eventually(async () => {
      const r = await invoke('GET', `/runs/${runId}`);
      return Array.isArray(r.body.steps) && r.body.steps.length > 0 ? r : undefined;
    }, 20_000);
    expect(before.body.status).toBe('working');
    expect(before.body.steps.map((s: { id: string }) => s.id)).toEqual(['first']);
    await cluster.kill(owner);

    const done = await eventually(
      async () => {
        const r = await invoke('GET', `/runs/${runId}`);
        return r.body.status === 'working' ? undefined : r.body;
      },
      90_000,
      250,
    );
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(calls.filter((c) => c.startsWith('/first'))).toHaveLength(1); // not re-run after the crash
    expect(calls.filter((c) => c === '/slow')).toHaveLength(2); // the interrupted step ran again
    expect(done.steps).toEqual([
      { id: 'first', kind: 'http', output: { status: 200, body: { at: '/first?q=x', n: 1 } } },
      { id: 'slow', kind: 'http', output: { status: 200, body: { at: '/slow', n: 3 } } },
      { id: 'last', kind: 'transform', output: { first: '/first?q=x', slow: '/slow' } },
    ]);
    expect(JSON.parse(done.output)).toEqual({ first: '/first?q=x', slow: '/slow' });
    await cluster.restart(owner);
  }, 150_000);
});
