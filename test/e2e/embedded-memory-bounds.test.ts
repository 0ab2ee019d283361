import type { Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import { InMemoryDocumentStore, InMemoryEventLog } from '@a2a-inbound/ports';
import { inMemoryEngines, startSystem, type Engines, type System } from '@a2a-inbound/embedded';
import { rpc } from '@a2a-inbound/testing';

/**
 * The in-memory embedded mode under sustained sends (issues 22/23, ADR 0075): its store and event log are
 * bounded, and a full bound drops the oldest finished work instead of refusing sends. Before, an insert into a
 * full collection failed with UNAVAILABLE, so every send after the bound's worth of tasks failed (at the
 * default 200,000, in the middle of `npm run bench`).
 */
describe('in-memory embedded mode at its bounds', () => {
  const RETAINED = 30;
  let engines: Engines;
  let system: System;
  let key: string;
  const endpoint = (): string => `${system.baseUrl}/agents/demo-echo/a2a`;
  const send = async (messageId: string) =>
    (
      await rpc(
        endpoint(),
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: { message: { role: 'user', messageId, parts: [{ kind: 'text', text: messageId }] } },
        },
        { key },
      )
    ).body as { result?: Task; error?: { code: number; message: string } };
  const get = async (id: string) =>
    (await rpc(endpoint(), { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id } }, { key })).body as {
      result?: Task;
      error?: { code: number };
    };

  beforeAll(async () => {
    engines = {
      ...inMemoryEngines(),
      // Small bounds, as the defaults would be after IN_MEMORY_RETAINED sends.
      store: new InMemoryDocumentStore({
        maxDocumentsPerCollection: RETAINED + 20,
        maxRetainedPerCollection: RETAINED,
      }),
      eventLog: new InMemoryEventLog({ maxStreams: RETAINED }),
    };
    system = await startSystem({ env: { PORT: '0', HOST: '127.0.0.1' }, log: silentLogger(), engines });
    key = system.tasks.seed!.credentials!.a2aKey;
  }, 120_000);
  afterAll(async () => {
    await system?.close();
    for (const c of [engines.bus, engines.eventLog, engines.cache, engines.limiter, engines.blobs, engines.store])
      await c.close();
  }, 60_000);

  it('keeps completing sends past the bound; the oldest finished tasks make room, the latest stay readable', async () => {
    const tasks: Task[] = [];
    for (let i = 0; i < 3 * RETAINED; i++) {
      const answer = await send(`bounded-${i}`);
      expect(answer.error, `send ${i}: ${JSON.stringify(answer.error)}`).toBeUndefined();
      expect(answer.result!.status.state).toBe('completed');
      tasks.push(answer.result!);
    }
    // The latest finished task is there, with its answer; its messageId still names it (no second task).
    const last = tasks.at(-1)!;
    expect((await get(last.id)).result?.artifacts?.[0]?.parts).toEqual([
      { kind: 'text', text: `bounded-${3 * RETAINED - 1}` },
    ]);
    expect((await send(`bounded-${3 * RETAINED - 1}`)).result?.id).toBe(last.id);
    // The first one was dropped before its retention ended: not found, as after the retention sweep.
    expect((await get(tasks[0]!.id)).error?.code).toBe(-32001);
    const tasksCollection = await engines.store.collection<{ state: string }>({ name: 'tasks' });
    expect(await tasksCollection.count({ state: 'completed' })).toBeLessThanOrEqual(RETAINED);
  }, 120_000);
});

describe('STORE_MEMORY_RETAINED', () => {
  it('sets what the in-memory engines of `npm start` keep; 20,000 by default; a bound below 100 is refused', async () => {
    const { loadEmbeddedConfig, openEmbeddedEngines, IN_MEMORY_RETAINED } = await import('@a2a-inbound/embedded');
    expect(loadEmbeddedConfig({ STORE: 'memory' }, process.cwd()).memoryRetained).toBe(IN_MEMORY_RETAINED);
    expect(IN_MEMORY_RETAINED).toBe(20_000);
    expect(() => loadEmbeddedConfig({ STORE: 'memory', STORE_MEMORY_RETAINED: '5' }, process.cwd())).toThrow(
      /STORE_MEMORY_RETAINED/,
    );
    const config = loadEmbeddedConfig({ STORE: 'memory', STORE_MEMORY_RETAINED: '100' }, process.cwd());
    const { engines } = await openEmbeddedEngines(config, silentLogger(), {});
    const c = await engines.store.collection<{ n: number }>({ name: 'tasks' });
    for (let i = 0; i < 150; i++) await c.insert(`t${i}`, { n: i }, { expiresAt: Date.now() + 60_000 });
    expect(await c.count({})).toBe(100);
    expect(await c.get('t49')).toBeUndefined();
    expect((await c.get('t50'))?.doc.n).toBe(50);
    for (const x of [engines.bus, engines.eventLog, engines.cache, engines.limiter, engines.blobs, engines.store])
      await x.close();
  });
});
