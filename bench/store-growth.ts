// Latency of the tasks service's hot path as stored tasks grow, on the real document store (FerretDB or
// MongoDB via MONGO_URL): p50 of message/send (non-blocking: idempotency record, charge, task insert, context
// memory, run request), of applying a runner event (the compare-and-set write) and of tasks/get, at 100 and
// at 1,000 stored tasks. The ratio 1,000/100 is the point: a hot path without scans stays near 1.
//   npx esbuild bench/store-growth.ts --bundle --platform=node --outfile=/tmp/store-growth.cjs
//   MONGO_URL=mongodb://127.0.0.1:27017 NODE_PATH=$PWD/node_modules node /tmp/store-growth.cjs [samples=60]
import { randomUUID } from 'node:crypto';
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
import type { eventsV1 } from '@a2a-inbound/proto';
import {
  ControlPlane,
  DEFAULT_TASK_CONFIG,
  openControlCollections,
  openTaskCollections,
  seedDemo,
  TaskService,
} from '@a2a-inbound/tasks';

const url = process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017';
const samples = Number(process.argv[2] ?? 60);
const dbName = `bench_growth_${Date.now()}`;

const p50 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const store = await MongoDocumentStore.connect({ url, dbName });
  const cache = new InMemoryCache();
  const control = new ControlPlane(await openControlCollections(store), cache, systemClock, randomIds);
  await seedDemo(control);
  const bus = new InMemoryBus();
  const tasks = new TaskService(await openTaskCollections(store), {
    control,
    blobs: new InMemoryBlobStore(),
    bus,
    eventLog: new InMemoryEventLog(),
    cache,
    clock: systemClock,
    ids: randomIds,
    log: silentLogger(),
    config: DEFAULT_TASK_CONFIG,
  });
  const caller = {
    subscriptionId: 'demo-subscription',
    deploymentId: 'demo-deployment',
    agentId: 'demo-echo',
    keyId: 'bench',
    protocolVersion: '0.3.0',
  };
  const runIds = new Map<string, string>();
  await bus.subscribe('a2a.run.requested', 'bench', async (m) => {
    const { eventsV1: ev } = await import('@a2a-inbound/proto');
    const r = ev.RunRequested.decode(m.value);
    runIds.set(r.taskId, r.runId);
  });
  const baseline = await store.collection<{ n: number }>({ name: 'bench_baseline' });
  await baseline.insert('only', { n: 1 });
  let stored = 0;
  const send = async (contextId?: string): Promise<string> => {
    const message = {
      kind: 'message' as const,
      role: 'user' as const,
      messageId: randomUUID(),
      parts: [{ kind: 'text' as const, text: 'hello' }],
      ...(contextId ? { contextId } : {}),
    };
    const t = await tasks.send(caller, message, { blocking: false });
    stored += 1;
    return t.id;
  };
  const complete = async (taskId: string): Promise<void> => {
    for (let i = 0; i < 100 && !runIds.has(taskId); i++) await new Promise((r) => setTimeout(r, 5));
    const event: eventsV1.TaskEvent = {
      taskId,
      runId: runIds.get(taskId) ?? '',
      runSeq: 1,
      emittedAtMs: Date.now(),
      batch: [],
      event: { $case: 'status', status: { state: 'completed', messageJson: '' } },
    };
    await tasks.applyRunEvent(event);
  };
  const fillTo = async (n: number): Promise<void> => {
    while (stored < n) {
      if (stored % 200 < 10) console.error(`stored ${stored}`);
      const batch = Array.from({ length: Math.min(10, n - stored) }, () => send().then(complete));
      await Promise.all(batch);
    }
  };
  const measure = async (label: string): Promise<Record<string, number>> => {
    const sendMs: number[] = [];
    const sendCtxMs: number[] = [];
    const applyMs: number[] = [];
    const getMs: number[] = [];
    const baseMs: number[] = [];
    const ctx = randomUUID();
    for (let i = 0; i < samples; i++) {
      // Baseline measured in the same loop: a read by id of a one-document collection (engine round trip
      // and machine load, nothing that grows).
      let t0 = performance.now();
      await baseline.get('only');
      baseMs.push(performance.now() - t0);
      t0 = performance.now();
      const id = await send();
      sendMs.push(performance.now() - t0);
      t0 = performance.now();
      await complete(id);
      applyMs.push(performance.now() - t0);
      t0 = performance.now();
      await tasks.get(caller, id);
      getMs.push(performance.now() - t0);
      t0 = performance.now();
      await send(ctx).then(complete);
      sendCtxMs.push(performance.now() - t0);
    }
    const out = {
      baseline: p50(baseMs),
      send: p50(sendMs),
      sendInContext: p50(sendCtxMs),
      applyEvent: p50(applyMs),
      get: p50(getMs),
    };
    console.log(
      `${label} (${stored} stored tasks) p50 ms:`,
      Object.fromEntries(Object.entries(out).map(([k, v]) => [k, Number(v.toFixed(1))])),
    );
    return out;
  };
  try {
    await fillTo(100);
    const small = await measure('100');
    await fillTo(1000);
    const large = await measure('1000');
    const norm = (m: Record<string, number>) =>
      Object.fromEntries(Object.entries(m).map(([k, v]) => [k, Number((v / m.baseline!).toFixed(1))]));
    console.log('p50 / baseline at 100:', norm(small));
    console.log('p50 / baseline at 1000:', norm(large));
    const ratios = Object.fromEntries(Object.keys(small).map((k) => [k, Number((large[k]! / small[k]!).toFixed(2))]));
    console.log('ratio p50 at 1,000 / at 100 stored tasks:', ratios);
  } finally {
    await store.close();
    await dropDb();
  }
}

async function dropDb(): Promise<void> {
  const { MongoClient } = await import('mongodb');
  const client = await MongoClient.connect(url);
  await client
    .db(dbName)
    .dropDatabase()
    .catch(() => undefined);
  await client.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
