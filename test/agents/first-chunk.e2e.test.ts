import { inMemoryEngines, startSystem, type System } from '@a2a-inbound/embedded';
import { silentLogger } from '@a2a-inbound/logger';
import {
  sse,
  startContractAgent,
  startUpstreamAgents,
  textMessage,
  type ContractAgent,
  type UpstreamAgents,
} from '@a2a-inbound/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, uid } from '../management/helpers';
import { ScriptedProvider } from './scripted-provider';

const DEPLOYMENT = 'demo-deployment';

/**
 * A2A 0.3 §7.2.3: `append: true` continues an artifact sent before, and the official Python (a2a-sdk 0.3.x) and
 * Java clients drop such a chunk of an artifact they have not seen (the answer is lost). So in every runtime
 * the first chunk of each artifact of a stream says no `append: true`, and the chunks still add up to the answer.
 */
// Task Agents (the graph runtime, the demo task graph) have no A2A stream: their runtimes are checked in
// services/runner/test/unit/first-chunk.test.ts.
describe('the first chunk of every artifact, per runtime (embedded, message/stream)', () => {
  let system: System;
  let provider: ScriptedProvider;
  let up: UpstreamAgents;
  let contract: ContractAgent;

  const api = async (method: string, path: string, body?: unknown) => {
    const token = system.tasks.seed!.credentials!.adminToken;
    const r = await http(system.baseUrl, method, `/api/v1${path}`, { token, ...(body !== undefined ? { body } : {}) });
    expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
    return r.body;
  };
  async function deploy(runtime: string, runtimeConfig: Record<string, unknown>): Promise<string> {
    const { id } = (await api('POST', '/agents', { name: uid(runtime), type: 'AI Agent' })) as { id: string };
    await api('POST', `/agents/${id}/versions`, { version: '1.0.0', runtime, runtimeConfig });
    await api('POST', `/agents/${id}/versions/1.0.0/promote`);
    await api('POST', `/deployments/${DEPLOYMENT}/agents`, { agentId: id, settings: { a2aEnabled: true } });
    return id;
  }

  /** Streams one message; answers each artifact's chunks (text and append flag) in order. */
  async function chunks(agentId: string, text: string) {
    const { frames } = await sse(
      `${system.baseUrl}/agents/${agentId}/a2a`,
      { jsonrpc: '2.0', id: 1, method: 'message/stream', params: { message: textMessage(text) } },
      { key: system.tasks.seed!.credentials!.a2aKey },
    );
    expect(frames.at(-1)?.data?.result?.status?.state).toBe('completed');
    const byArtifact = new Map<string, { append: unknown; text: string }[]>();
    for (const f of frames) {
      const r = f.data.result as { kind: string; append?: boolean; artifact?: { artifactId: string; parts: any[] } };
      if (r.kind !== 'artifact-update') continue;
      const list = byArtifact.get(r.artifact!.artifactId) ?? [];
      list.push({ append: r.append, text: r.artifact!.parts.map((p) => p.text ?? JSON.stringify(p.data)).join('') });
      byArtifact.set(r.artifact!.artifactId, list);
    }
    return [...byArtifact.values()];
  }

  beforeAll(async () => {
    provider = await new ScriptedProvider().start();
    up = await startUpstreamAgents();
    contract = await startContractAgent();
    system = await startSystem({
      env: { PORT: '0', HOST: '127.0.0.1', EGRESS_ALLOW_CIDRS: '127.0.0.1/32' },
      engines: inMemoryEngines(),
      log: silentLogger(),
    });
  }, 60_000);
  afterAll(async () => {
    await system?.close();
    await provider?.close();
    await up?.close();
    await contract?.close();
  }, 60_000);

  const cases: [string, () => Promise<string>, string, string][] = [
    ['demo echo', () => Promise.resolve('demo-echo'), 'hello there, streamed', 'hello there, streamed'],
    [
      'http (SSE deltas)',
      () => deploy('http', { url: `${contract.base}/sse`, streaming: true }),
      'there',
      'Hello there',
    ],
    [
      'model (streamed deltas)',
      () => deploy('model', { baseUrl: `${provider.url}/v1`, model: 'scripted-1', instructions: 'Test.' }),
      'stream: one two three',
      'one two three',
    ],
    ['a2a-upstream', () => deploy('a2a-upstream', { url: up.url('stream') }), 'hi', 'upstream heard: hi'],
    [
      'a2a-upstream whose upstream starts with append: true',
      () => deploy('a2a-upstream', { url: up.url('appending') }),
      'hi',
      'upstream heard: hi',
    ],
  ];
  it.each(cases)('%s', async (_name, agent, text, answer) => {
    const artifacts = await chunks(await agent(), text);
    expect(artifacts.length).toBeGreaterThan(0);
    for (const list of artifacts) {
      expect(list[0]!.append).not.toBe(true);
      expect(list.slice(1).every((c) => c.append === true)).toBe(true);
    }
    expect(artifacts.map((list) => list.map((c) => c.text).join('')).join('\n')).toContain(answer);
  });
});
