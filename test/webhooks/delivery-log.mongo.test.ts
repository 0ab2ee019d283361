import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient } from 'mongodb';
import { MongoDocumentStore } from '@a2a-inbound/adapter-mongo';
import type { Collection } from '@a2a-inbound/ports';
import { listDeliveries, openDeliveryLog, type DeliveryLogDoc } from '@a2a-inbound/webhooks';

// The push delivery log's per-agent read on the real document store (MongoDB; FerretDB v1 in CI): the owner
// filter, newest-first sort, skip-based pages and the compound index. Real engine only (MONGO_URL).
const url = process.env.MONGO_URL ?? '';
const dbName = `pushlog_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;

describe.runIf(Boolean(url))('push delivery log on MongoDB (MONGO_URL)', () => {
  let store: MongoDocumentStore;
  let log: Collection<DeliveryLogDoc>;

  const record = (i: number, over: Partial<DeliveryLogDoc> = {}): DeliveryLogDoc => ({
    taskId: `task-${i}`,
    seq: 2,
    configId: 'c',
    subscriptionId: 'sub-a',
    agentId: 'agent.with.dots',
    target: { url: 'https://hooks.example.com/in?token=REDACTED', host: 'hooks.example.com' },
    state: 'delivered',
    outcome: 'delivered',
    claimedAtMs: 1_000 + i,
    attempts: [{ atMs: 1_001 + i, status: 200 }],
    finishedAtMs: 1_002 + i,
    ...over,
  });

  beforeAll(async () => {
    store = await MongoDocumentStore.connect({ url, dbName });
    log = await openDeliveryLog(store);
    for (let i = 0; i < 7; i++) await log.insert(`a:${i}`, record(i), { expiresAt: Date.now() + 60_000 });
    await log.insert('b:1', record(99, { subscriptionId: 'sub-b', taskId: 'theirs' }));
    await log.insert('other-agent', record(50, { agentId: 'agent-2', taskId: 'other-agent' }));
  });
  afterAll(async () => {
    const raw = new MongoClient(url);
    await raw.connect();
    await raw
      .db(dbName)
      .dropDatabase()
      .catch(() => undefined);
    await raw.close();
    await store?.close();
  });

  it('pages one agent’s deliveries newest first within the subscription', async () => {
    const q = { subscriptionId: 'sub-a', agentId: 'agent.with.dots', limit: 3 };
    const seen: string[] = [];
    let token = '';
    for (let page = 0; page < 5; page++) {
      const r = await listDeliveries(log, { ...q, pageToken: token });
      seen.push(...r.deliveries.map((d) => d.taskId));
      token = r.nextPageToken;
      if (!token) break;
    }
    expect(seen).toEqual(['task-6', 'task-5', 'task-4', 'task-3', 'task-2', 'task-1', 'task-0']);
    const b = await listDeliveries(log, { subscriptionId: 'sub-b', agentId: 'agent.with.dots' });
    expect(b.deliveries.map((d) => d.taskId)).toEqual(['theirs']);
  });

  it('creates the compound index the read uses', async () => {
    const raw = new MongoClient(url);
    await raw.connect();
    try {
      const names = (await raw.db(dbName).collection('push_deliveries').indexes()).map((i) =>
        Object.keys(i.key).join(','),
      );
      expect(names.some((n) => /subscriptionId.*agentId.*claimedAtMs/.test(n))).toBe(true);
    } finally {
      await raw.close();
    }
  });
});
