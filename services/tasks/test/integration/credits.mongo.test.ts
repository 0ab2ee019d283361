import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient } from 'mongodb';
import { MongoDocumentStore } from '@a2a-inbound/adapter-mongo';
import { silentLogger } from '@a2a-inbound/logger';
import {
  InMemoryBlobStore,
  InMemoryBus,
  InMemoryCache,
  InMemoryEventLog,
  randomIds,
  systemClock,
} from '@a2a-inbound/ports';
import { ControlPlane, openControlCollections } from '../../src/domain/control-plane';
import { seedDemo } from '../../src/domain/seed';
import { DEFAULT_TASK_CONFIG, openTaskCollections, TaskService } from '../../src/domain/task-service';

// Real engine (FerretDB in CI, via MONGO_URL): concurrent sends of one tenant used to serialise on the
// subscription document and answer "too many concurrent writers" (-32603) at about 10 sends/s.
const url = process.env.MONGO_URL ?? '';
const dbName = `credits_${Date.now().toString(36)}`;

describe.runIf(Boolean(url))('credits on the real document store (MONGO_URL)', () => {
  let store: MongoDocumentStore;
  let control: ControlPlane;
  let tasks: TaskService;
  const caller = {
    subscriptionId: 'demo-subscription',
    deploymentId: 'demo-deployment',
    agentId: 'demo-echo',
    keyId: 'k',
    protocolVersion: '0.3.0',
  };
  const message = (messageId: string) => ({
    kind: 'message' as const,
    role: 'user' as const,
    messageId,
    parts: [{ kind: 'text' as const, text: 'hi' }],
  });

  beforeAll(async () => {
    store = await MongoDocumentStore.connect({ url, dbName });
    const cache = new InMemoryCache();
    control = new ControlPlane(await openControlCollections(store), cache, systemClock, randomIds);
    await seedDemo(control);
    tasks = new TaskService(await openTaskCollections(store), {
      control,
      blobs: new InMemoryBlobStore(),
      bus: new InMemoryBus(),
      eventLog: new InMemoryEventLog(),
      cache,
      clock: systemClock,
      ids: randomIds,
      log: silentLogger(),
      // The 50 racing sends below test charges, not admission: more than the default pending-send bound (ADR 0030).
      config: { ...DEFAULT_TASK_CONFIG, maxPendingSends: 1_000 },
    });
  });

  afterAll(async () => {
    await store?.close();
    const client = new MongoClient(url);
    try {
      await client.connect();
      await client.db(dbName).dropDatabase();
    } finally {
      await client.close();
    }
  });

  it(
    '50 concurrent sends of one tenant are all accepted and each charged exactly once',
    { timeout: 120_000 },
    async () => {
      const before = (await control.accounts.getSubscription(caller.subscriptionId)).credits;
      const ids = Array.from({ length: 50 }, (_, i) => `race-${i}`);
      const results = await Promise.allSettled(ids.map((id) => tasks.send(caller, message(id), { blocking: false })));
      const failures = results.flatMap((r) => (r.status === 'rejected' ? [String((r.reason as Error).message)] : []));
      expect(failures).toEqual([]);
      expect((await control.accounts.getSubscription(caller.subscriptionId)).credits).toBe(before - 50);
      // Repeats of the same messageIds (racing again) return the stored tasks and charge nothing.
      const repeats = await Promise.all(
        ids.slice(0, 10).map((id) => tasks.send(caller, message(id), { blocking: false })),
      );
      expect(new Set(repeats.map((t) => t.id)).size).toBe(10);
      expect((await control.accounts.getSubscription(caller.subscriptionId)).credits).toBe(before - 50);
    },
  );

  it('racing charges on the engine never take a small balance below zero', { timeout: 120_000 }, async () => {
    await control.accounts.createSubscription('small', 'Small', 12);
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => control.accounts.charge('small', `msg:s${i}`)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(12);
    for (const r of results)
      if (r.status === 'rejected') expect((r.reason as { code?: string }).code).toBe('INSUFFICIENT_CREDITS');
    expect((await control.accounts.getSubscription('small')).credits).toBe(0);
  });
});
