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

// Store commands of a send's accept phase on the real engine (MONGO_URL: FerretDB in CI, or MongoDB), per
// collection, from the driver's command monitoring (issue 23, item 2; ADR 0037, ADR 0041). Fails when an
// operation comes back: a ledger record beside the idempotency record, a read of the subscription, a bucket
// read before its compare-and-set.
const url = process.env.MONGO_URL ?? '';
const dbName = `store_ops_${Date.now().toString(36)}`;
const IGNORED = new Set(['ping', 'hello', 'isMaster', 'ismaster', 'buildInfo', 'endSessions', 'listIndexes']);

describe.runIf(Boolean(url))('store commands per send on the real document store (MONGO_URL)', () => {
  let store: MongoDocumentStore;
  let control: ControlPlane;
  let tasks: TaskService;
  const counts = new Map<string, number>();
  let counting = false;
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
    store = await MongoDocumentStore.connect({
      url,
      dbName,
      onCommand: (name, command) => {
        if (!counting || IGNORED.has(name)) return;
        const coll = command[name];
        const key = `${typeof coll === 'string' ? coll : '?'} ${name}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      },
    });
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
      config: DEFAULT_TASK_CONFIG,
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
    'a new send is one idempotency insert holding its charge, one bucket write, the run marker and the task',
    {
      timeout: 60_000,
    },
    async () => {
      const before = (await control.accounts.getSubscription(caller.subscriptionId)).credits;
      for (let i = 0; i < 3; i++) await tasks.send(caller, message(`warm-${i}`), { blocking: false });
      const sends = 10;
      counts.clear();
      counting = true;
      for (let i = 0; i < sends; i++) await tasks.send(caller, message(`m-${i}`), { blocking: false });
      counting = false;
      const per = (key: string): number => (counts.get(key) ?? 0) / sends;
      // The charge rides on the idempotency record: no ledger write.
      expect(per('message_ids insert')).toBe(1);
      expect([...counts.keys()].filter((k) => k.startsWith('credit_charges'))).toEqual([]);
      expect(per('credit_buckets findAndModify')).toBe(1);
      expect(per('credit_buckets find')).toBe(0);
      expect(per('subscriptions find')).toBe(0);
      expect(per('tasks insert')).toBe(1);
      expect(per('active_runs insert')).toBe(1);
      // Claim-mode compare-and-set (FerretDB) adds one claim insert for the bucket write; native CAS none.
      const claims = per('_cas_claims insert');
      expect(claims).toBeLessThanOrEqual(1);
      const total = [...counts.values()].reduce((s, n) => s + n, 0) / sends;
      expect(total).toBe(4 + claims);
      expect((await control.accounts.getSubscription(caller.subscriptionId)).credits).toBe(before - sends - 3);
      // A repeat of a messageId is answered from the stored task and charges nothing.
      await tasks.send(caller, message('m-0'), { blocking: false });
      expect((await control.accounts.getSubscription(caller.subscriptionId)).credits).toBe(before - sends - 3);
    },
  );
});
