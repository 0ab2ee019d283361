import { createHash, randomBytes } from 'node:crypto';
import type { Message, Task } from '@a2a-js/sdk';
import { BSON, MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, rpc, sse, textMessage, uniqueId, type Sut } from '@a2a-inbound/testing';
import { engineUrlsSet, startDistributed, type Cluster } from './cluster';

const ECHO = 'demo-echo';
const MB = 1024 * 1024;

const textOf = (parts: readonly { kind: string; text?: string }[] | undefined): string =>
  (parts ?? []).map((p) => (p.kind === 'text' ? (p.text ?? '') : '')).join('');

/**
 * Issue 8 item 4 (ADR 0013): spec-legal large inputs through the gateways of the distributed layout (Kafka's
 * 1 MB message limit, BSON's 16 MB document limit): each completes with its content intact on every wire
 * answer, and the context stays usable afterwards.
 */
describe.runIf(engineUrlsSet)('large payloads in the distributed mode', () => {
  let cluster: Cluster;
  let sut: Sut;
  let namespace: string;
  let mongo: MongoClient;
  const url = (agent: string, base = sut.baseUrl): string => `${base}/agents/${agent}/a2a`;

  beforeAll(async () => {
    ({ cluster, sut, namespace } = await startDistributed());
    mongo = await MongoClient.connect(process.env.MONGO_URL!);
  }, 180_000);
  afterAll(async () => {
    await mongo?.close();
    await cluster?.stopAll();
  }, 120_000);

  /** BSON size of the stored task document: far below 16 MB whatever the task carries. */
  async function storedTaskBytes(taskId: string): Promise<number> {
    const doc = await mongo
      .db(`a2a_inbound_${namespace}`)
      .collection<{ _id: string }>('tasks')
      .findOne({ _id: taskId });
    expect(doc).not.toBeNull();
    return BSON.calculateObjectSize(doc!);
  }

  async function send(message: Record<string, unknown>, historyLength?: number, base?: string): Promise<Task> {
    const params: Record<string, unknown> = { message };
    if (historyLength !== undefined) params.configuration = { historyLength };
    const r = await rpc(
      url(ECHO, base),
      { jsonrpc: '2.0', id: uniqueId('rpc'), method: 'message/send', params },
      { key: sut.a2aKey },
    );
    expect(r.status).toBe(200);
    expect(r.body.error).toBeUndefined();
    return r.body.result as Task;
  }

  /** Later turns of the context still work: a plain message and one that reads the conversation memory. */
  async function contextStillWorks(contextId: string): Promise<void> {
    for (const text of ['a small follow-up', 'what did I say?']) {
      const t = await send(textMessage(text, { contextId }), undefined, cluster.gateways[1]);
      expect(t.status.state).toBe('completed');
      expect(t.contextId).toBe(contextId);
      if (text === 'a small follow-up') expect(textOf(t.artifacts?.[0]?.parts)).toBe(text);
      else expect(textOf(t.artifacts?.[0]?.parts)).toBe('You said: a small follow-up');
    }
  }

  it('600,000 characters through the SDK client: echoed intact by message/send, tasks/get and message/stream; the context stays usable', async () => {
    const text = `start-${'a€😀b'.repeat(150_000 - 2)}-end`.slice(0, 600_000);
    expect(text.length).toBe(600_000);
    const contextId = uniqueId('ctx');
    const client = await a2aClient(sut.baseUrl, ECHO, sut.a2aKey);
    const result = await client.sendMessage({
      message: { kind: 'message', role: 'user', messageId: uniqueId('m'), contextId, parts: [{ kind: 'text', text }] },
      configuration: { blocking: true, historyLength: 10 },
    });
    if ('error' in result) throw new Error(JSON.stringify(result.error));
    const task = result.result as Task;
    expect(task.status.state).toBe('completed');
    expect(textOf(task.artifacts?.[0]?.parts)).toBe(text);
    expect(textOf((task.history ?? [])[0]?.parts)).toBe(text);
    expect(await storedTaskBytes(task.id)).toBeLessThan(256 * 1024);

    const got = await client.getTask({ id: task.id, historyLength: 10 });
    if ('error' in got) throw new Error(JSON.stringify(got.error));
    expect(textOf(got.result.artifacts?.[0]?.parts)).toBe(text);
    const history = got.result.history as Message[];
    expect(history.map((m) => m.role)).toEqual(['user', 'agent']);
    expect(history.map((m) => textOf(m.parts))).toEqual([text, text]);

    // SSE through the other gateway: the deltas concatenate to the full text.
    const streamed = await sse(
      url(ECHO, cluster.gateways[1]),
      { jsonrpc: '2.0', id: 's', method: 'message/stream', params: { message: { ...textMessage(text), contextId } } },
      { key: sut.a2aKey },
    );
    const deltas = streamed.frames.filter((f) => f.data.result?.kind === 'artifact-update');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((f) => textOf(f.data.result.artifact.parts)).join('')).toBe(text);
    expect(streamed.frames.at(-1)!.data.result).toMatchObject({ final: true, status: { state: 'completed' } });

    await contextStillWorks(contextId);
  }, 180_000);

  it('a 1,000,000-character message does not make the later messages of its context fail', async () => {
    const contextId = uniqueId('ctx');
    const text = 'z'.repeat(1_000_000);
    const first = await send({ ...textMessage(text), contextId });
    expect(first.status.state).toBe('completed');
    expect(textOf(first.artifacts?.[0]?.parts)).toBe(text);
    // Memory now holds the 1M message and its 1M answer: every later turn still fits a bus message.
    for (let i = 0; i < 3; i++) {
      const t = await send({ ...textMessage(`turn ${i}`), contextId });
      expect(t.status.state).toBe('completed');
      expect(textOf(t.artifacts?.[0]?.parts)).toBe(`turn ${i}`);
    }
    await contextStillWorks(contextId);
  }, 180_000);

  it('a 3 MB data part: handed to the agent unchanged (echoed intact), returned intact by tasks/get', async () => {
    const contextId = uniqueId('ctx');
    const data = { rows: Array.from({ length: 50_000 }, (_, i) => ({ i, v: randomBytes(36).toString('base64') })) };
    const json = JSON.stringify(data);
    expect(json.length).toBeGreaterThan(3 * MB);
    const task = await send({ ...textMessage('data follows'), contextId, parts: [{ kind: 'data', data }] }, 5);
    expect(task.status.state).toBe('completed');
    expect(textOf(task.artifacts?.[0]?.parts)).toBe(`Received 1 data part(s): ${json}`);
    expect(task.history?.[0]?.parts[0]).toEqual({ kind: 'data', data });
    expect(await storedTaskBytes(task.id)).toBeLessThan(256 * 1024);
    const got = await rpc(
      url(ECHO),
      { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: task.id, historyLength: 1 } },
      { key: sut.a2aKey },
    );
    expect(textOf(got.body.result.artifacts[0].parts)).toBe(`Received 1 data part(s): ${json}`);
    await contextStillWorks(contextId);
  }, 180_000);

  it('a 20 MB file: stored against the subscription (size and SHA-256 intact), handed to the agent; the context stays usable', async () => {
    const contextId = uniqueId('ctx');
    const bytes = randomBytes(20 * MB);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const task = await send(
      {
        ...textMessage('x'),
        contextId,
        parts: [
          { kind: 'file', file: { name: 'big.pdf', mimeType: 'application/pdf', bytes: bytes.toString('base64') } },
        ],
      },
      5,
    );
    expect(task.status.state).toBe('completed');
    expect(textOf(task.artifacts?.[0]?.parts)).toBe(
      `Please review the attached files. Received 1 file(s): big.pdf (application/pdf, ${20 * MB} bytes)`,
    );
    expect(task.history?.[0]?.parts[0]).toMatchObject({
      kind: 'file',
      file: { name: 'big.pdf', mimeType: 'application/pdf' },
      metadata: { 'a2a-inbound/size': 20 * MB, 'a2a-inbound/sha256': sha256 },
    });
    expect(await storedTaskBytes(task.id)).toBeLessThan(64 * 1024);
    await contextStillWorks(contextId);
  }, 180_000);

  it('a 20 MB data part: echoed intact (its 20 MB answer streamed as spilled deltas), the task document stays small', async () => {
    const contextId = uniqueId('ctx');
    const data = { blob: randomBytes(15 * MB).toString('base64') };
    const json = JSON.stringify(data);
    expect(json.length).toBeGreaterThan(20 * MB);
    const task = await send({ ...textMessage('x'), contextId, parts: [{ kind: 'data', data }] });
    expect(task.status.state).toBe('completed');
    expect(textOf(task.artifacts?.[0]?.parts)).toBe(`Received 1 data part(s): ${json}`);
    expect(await storedTaskBytes(task.id)).toBeLessThan(256 * 1024);
    await contextStillWorks(contextId);
  }, 240_000);
});
