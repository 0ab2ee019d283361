// The LMDB work of one lone durable `message/send` (issue 22), without HTTP or the services: the writes a send
// makes (its messageId claim, the credit bucket's compare-and-set, the active-run marker put and deleted, the task
// insert and its update, the event-log append of the run's batch with the stream's retention), in one turn's
// transaction, then the commit the answer waits for; on a file holding PREFILL such sends already. Prints CPU
// (process.cpuUsage: every thread, user + system) per send, all of it and inside the commit alone.
//   npx esbuild bench/lmdb-lone-send.ts --bundle --platform=node --format=esm --external:lmdb --outfile=bench/.out/lone.mjs
//   node bench/.out/lone.mjs [sends=3000] [prefill=15000]   (inside the repository, so that lmdb resolves)
// Variants for weighing what a send writes (docs/performance.md, "Where a lone durable send's extra CPU goes"):
// NO_WRITEMAP=1 (LMDB's page copies and a child transaction per write, as before ADR 0077), RING=16 (the credit bucket keeps 16 debits, not 128), OBJECT_RING=1 (the ring as written before ADR 0076: objects with
// the whole charge id instead of 12-character notes in one string), SHORT_IDS=1 (short message ids, not UUIDs), NO_LASTBATCH=1 (the finished task without the run's last
// batch), NO_RUNS=1 (no active-run marker), NO_RUNS_IDX=1 (the marker without its `sinceMs` index), NO_EVENTS=1, NO_IDX=1 (the tasks without indexes), NO_CLAIM=1.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, randomUUID } from 'node:crypto';
import { LmdbDatabase, LmdbDocumentStore, LmdbEventLog } from '@a2a-inbound/adapter-lmdb';
import type { PendingCommit } from '@a2a-inbound/adapter-lmdb';

const sends = Number(process.argv[2] ?? 3000);
const prefill = Number(process.argv[3] ?? 15000);
const dir = mkdtempSync(join(tmpdir(), 'lmdb-lone-'));
let pending: PendingCommit | undefined;
const db = LmdbDatabase.open(dir, {
  scheduleCommit: (txn) => (pending = txn),
  ...(process.env.NO_WRITEMAP ? { writemap: false } : {}),
});
const store = new LmdbDocumentStore(db);
const log = new LmdbEventLog(db);
const DAY = 86_400_000;

const tasks = await store.collection<Record<string, unknown>>({
  name: 'tasks',
  indexes: process.env.NO_IDX
    ? []
    : [{ fields: ['subscriptionId', 'contextId'] }, { fields: ['state'] }, { fields: ['subscriptionId', 'agentId'] }],
});
const claims = await store.collection<Record<string, unknown>>({ name: 'message_ids' });
const buckets = await store.collection<Record<string, unknown>>({ name: 'credit_buckets' });
const runs = await store.collection<Record<string, unknown>>({
  name: 'active_runs',
  indexes: process.env.NO_RUNS_IDX ? [] : [{ fields: ['sinceMs'] }],
});

const eventJson = (id: string, text: string): string =>
  JSON.stringify({
    kind: 'artifact-update',
    taskId: id,
    contextId: id,
    artifact: { artifactId: `${id}-agent_response`, name: 'agent_response', parts: [{ kind: 'text', text }] },
    append: true,
    lastChunk: false,
  });
function taskDoc(id: string, messageId: string, state: string): Record<string, unknown> {
  const now = Date.now();
  return {
    id,
    subscriptionId: 'demo-subscription',
    deploymentId: 'demo-deployment',
    agentId: 'demo-echo',
    contextId: id,
    status: { state, timestamp: new Date(now).toISOString() },
    state,
    artifacts:
      state === 'completed'
        ? [
            {
              artifactId: `${id}-agent_response`,
              name: 'agent_response',
              parts: [{ kind: 'text', text: 'benchmark text' }],
            },
          ]
        : [],
    history: [
      {
        kind: 'message',
        role: 'user',
        messageId,
        parts: [{ kind: 'text', text: 'benchmark text' }],
        taskId: id,
        contextId: id,
      },
    ],
    currentRunId: randomUUID(),
    lastRunSeq: 5,
    lastSeq: 6,
    runDeadlineMs: now + 900_000,
    runSeenAtMs: now,
    createdAtMs: now,
    updatedAtMs: now,
    ...(state === 'completed' && !process.env.NO_LASTBATCH
      ? { lastBatch: [1, 2, 3, 4, 5].map((seq) => ({ seq, eventJson: eventJson(id, 'benc'), final: false })) }
      : {}),
  };
}
const events = (id: string): { seq: number; data: Uint8Array }[] =>
  [1, 2, 3, 4, 5, 6].map((seq) => ({ seq, data: Buffer.from(eventJson(id, 'bench').padEnd(330, ' ')) }));

let n = 0;
async function send(): Promise<void> {
  n += 1;
  const id = randomUUID();
  const messageId = process.env.SHORT_IDS ? `m-${process.pid}-${n}` : randomUUID();
  if (!process.env.NO_CLAIM)
    await claims.insert(
      `demo-subscription:${messageId}`,
      { subscriptionId: 'demo-subscription', messageId, taskId: id, createdAtMs: Date.now(), charged: 1 },
      { expiresAt: Date.now() + 7 * DAY },
    );
  const b = (await buckets.get('demo-subscription:0'))!;
  const ring = Number(process.env.RING ?? 128);
  if (!process.env.OBJECT_RING) {
    const digest = createHash('sha256').update(`msg:${messageId}`).digest('base64url').slice(0, 12);
    const prev = (b.doc.ring as string | undefined) ?? '';
    const entries = prev === '' ? [] : prev.split(' ');
    entries.push(`${digest}:1`);
    const next = entries.slice(-ring).join(' ');
    await buckets.replace(b.id, b.version, { ...b.doc, credits: (b.doc.credits as number) - 1, ring: next });
  } else {
    const debits = [...(b.doc.debits as unknown[]), { chargeId: `msg:${messageId}`, amount: 1 }].slice(-ring);
    await buckets.replace(b.id, b.version, { ...b.doc, credits: (b.doc.credits as number) - 1, debits });
  }
  if (!process.env.NO_RUNS) await runs.insert(id, { taskId: id, sinceMs: Date.now() });
  const t = await tasks.insert(id, taskDoc(id, messageId, 'working'), { expiresAt: Date.now() + 7 * DAY });
  if (!process.env.NO_EVENTS) await log.appendBatch(id, events(id), { expireAfterMs: 7 * DAY });
  await tasks.replace(id, t.version, taskDoc(id, messageId, 'completed'));
  if (!process.env.NO_RUNS) await runs.delete(id);
}

await buckets.insert('demo-subscription:0', {
  subscriptionId: 'demo-subscription',
  credits: 1e9,
  debits: [],
  grants: [],
});
pending!.commit();
for (let i = 0; i < prefill; i++) {
  await send();
  if (i % 50 === 49) pending?.commit();
}
pending?.commit();
let inCommit = 0;
let commitSys = 0;
const start = process.cpuUsage();
for (let i = 0; i < sends; i++) {
  await send();
  const c0 = process.cpuUsage();
  pending!.commit();
  const c = process.cpuUsage(c0);
  inCommit += c.user + c.system;
  commitSys += c.system;
}
const all = process.cpuUsage(start);
const us = (v: number): string => (v / sends).toFixed(1);
console.log(
  `${sends} lone sends on ${prefill}: CPU per send ${us(all.user + all.system)} µs (user ${us(all.user)}, system ${us(all.system)}); in the commit ${us(inCommit)} µs (system ${us(commitSys)}); commits ${db.commits}; file ${(db.root.getStats() as { lastPageNumber: number }).lastPageNumber} pages`,
);
await log.close();
await store.close();
rmSync(dir, { recursive: true, force: true });
