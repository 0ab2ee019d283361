// Store operations per echo `message/send` (issue 23, item 2), per collection: the system in this process on
// the real document store of the distributed mode (MONGO_URL: FerretDB or MongoDB; the tasks and webhooks
// services do the same store work there as here), sequential blocking sends after a warm-up. Two counts:
// - wire: every command the MongoDB driver sends (command monitoring), by collection and command, so the
//   claims of claim-mode compare-and-set (ADR 0003) show;
// - port: the document-store port's calls (insert, get, replace, ...), by collection.
// With BENCH_STORE=memory only the port count (the in-memory store).
//   npx esbuild bench/store-ops.ts --bundle --platform=node --external:@grpc/reflection --outfile=/tmp/store-ops.cjs
//   MONGO_URL=mongodb://127.0.0.1:27017 NODE_PATH=$PWD/node_modules node /tmp/store-ops.cjs [sends=100]
import { randomUUID } from 'node:crypto';
import { MongoDocumentStore } from '@a2a-inbound/adapter-mongo';
import { inMemoryEngines, startSystem } from '@a2a-inbound/embedded';
import { silentLogger } from '@a2a-inbound/logger';
import type { Collection, CollectionSpec, DocumentStore, EventLog } from '@a2a-inbound/ports';

const sends = Number(process.argv[2] ?? 100);
/** Sends in flight at once (BENCH_CONCURRENCY loops sharing `sends`): conflicts between them show. */
const concurrency = Math.max(1, Number(process.env.BENCH_CONCURRENCY ?? 1));
const warmup = 10;
const url = process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017';
const kind = process.env.BENCH_STORE ?? 'mongo';

type Counts = Map<string, number>;
const bump = (m: Counts, key: string): void => void m.set(key, (m.get(key) ?? 0) + 1);

/** The port's calls by `collection.method`. */
function countingStore(inner: DocumentStore, counts: Counts): DocumentStore {
  const methods = ['insert', 'get', 'findOne', 'find', 'count', 'replace', 'delete', 'sweepExpired'] as const;
  return {
    async collection<T extends object>(spec: CollectionSpec): Promise<Collection<T>> {
      const c = await inner.collection<T>(spec);
      const wrapped: Record<string, unknown> = { name: c.name };
      for (const m of methods) {
        wrapped[m] = (...args: unknown[]) => {
          bump(counts, `${spec.name}.${m}`);
          return (c[m] as (...a: unknown[]) => unknown).apply(c, args);
        };
      }
      return wrapped as unknown as Collection<T>;
    },
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}

/** The event log's calls by `eventLog.method` (a tail counts once, where it starts). */
function countingEventLog(inner: EventLog, counts: Counts): EventLog {
  const counted =
    <A extends unknown[], R>(name: string, f: (...a: A) => R) =>
    (...a: A): R => {
      bump(counts, `eventLog.${name}`);
      return f.apply(inner, a);
    };
  return {
    append: counted('append', inner.append),
    appendBatch: counted('appendBatch', inner.appendBatch),
    read: counted('read', inner.read),
    last: counted('last', inner.last),
    tail: counted('tail', inner.tail),
    expire: counted('expire', inner.expire),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}

const IGNORED = new Set(['ping', 'hello', 'isMaster', 'ismaster', 'buildInfo', 'endSessions', 'listIndexes']);

function table(title: string, counts: Counts, n: number): void {
  const rows = [...counts.entries()].sort((a, b) => a[0].localeCompare(b[0]));
  const total = rows.reduce((s, [, v]) => s + v, 0);
  process.stdout.write(`\n${title} (per send, ${n} sends)\n`);
  for (const [k, v] of rows) process.stdout.write(`  ${k.padEnd(44)} ${(v / n).toFixed(2)}\n`);
  process.stdout.write(`  ${'all'.padEnd(44)} ${(total / n).toFixed(2)}\n`);
}

async function main(): Promise<void> {
  const wire: Counts = new Map();
  const port: Counts = new Map();
  let counting = false;
  const dbName = `bench_ops_${Date.now()}`;
  const inner: DocumentStore =
    kind === 'memory'
      ? inMemoryEngines().store
      : await MongoDocumentStore.connect({
          url,
          dbName,
          onCommand: (name, command) => {
            if (!counting || IGNORED.has(name)) return;
            const coll = command[name];
            bump(wire, `${typeof coll === 'string' ? coll : '?'} ${name}`);
          },
        });
  const memory = inMemoryEngines();
  const engines = { ...memory, store: countingStore(inner, port), eventLog: countingEventLog(memory.eventLog, port) };
  const system = await startSystem({
    env: { PORT: '0', HOST: '127.0.0.1', SEED_RATE_LIMIT_PER_MINUTE: '10000000' },
    engines,
    log: silentLogger(),
  });
  const key = system.tasks.seed!.credentials!.a2aKey;
  const send = async (): Promise<void> => {
    const r = await fetch(`${system.baseUrl}/agents/demo-echo/a2a`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: { role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: 'hello' }] } },
      }),
    });
    const body = (await r.json()) as { result?: { status?: { state?: string } } };
    if (body.result?.status?.state !== 'completed') throw new Error(`send: ${JSON.stringify(body)}`);
  };
  for (let i = 0; i < warmup; i++) await send();
  // Let the warm-up's trailing work (webhook announcements, run markers) settle before counting.
  await new Promise((r) => setTimeout(r, 500));
  port.clear();
  counting = true;
  const cpu0 = process.cpuUsage();
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, loop) => {
      for (let i = loop; i < sends; i += concurrency) await send();
    }),
  );
  await new Promise((r) => setTimeout(r, 500));
  counting = false;
  const cpu = process.cpuUsage(cpu0);
  const snapshot = new Map(port);
  process.stdout.write(
    `store: ${kind}; ${sends} sends, ${concurrency} at a time, in ${Date.now() - t0} ms; ` +
      `CPU of this process ${((cpu.user + cpu.system) / 1000 / sends).toFixed(2)} ms per send\n`,
  );
  table('port calls', snapshot, sends);
  if (kind !== 'memory') table('wire commands (collection command)', wire, sends);
  await system.close();
  await inner.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err instanceof Error ? err.stack : err)}\n`);
  process.exit(1);
});
