import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { Kafka, logLevel } from 'kafkajs';
import type { BusMessage } from '@a2a-inbound/ports';
import { KafkaBus } from '../src/index';

// Kafka-specific behaviour beyond the shared suite; real broker only (KAFKA_BROKERS).
const brokers = process.env.KAFKA_BROKERS ?? '';
const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`;
const topic = (n: string): string => `kafka-test.${run}.${n}`;
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

describe.runIf(Boolean(brokers))('KafkaBus specifics', () => {
  let bus: KafkaBus;
  const admin = new Kafka({
    clientId: 'kafka-test-admin',
    brokers: brokers.split(','),
    logLevel: logLevel.NOTHING,
  }).admin();
  const deadLetters: { message: BusMessage; group: string }[] = [];
  beforeAll(async () => {
    bus = await KafkaBus.connect({
      brokers,
      clientId: 'kafka-test',
      topics: [{ name: topic('declared'), partitions: 3 }],
      defaultPartitions: 4,
      retryDelayMs: 50,
      maxAttempts: 3,
      onDeadLetter: (message, group) => deadLetters.push({ message, group }),
    });
    await admin.connect();
  });
  afterAll(async () => {
    await bus.close();
    // Real engines keep data: delete this run's topics (only ours; other runs may be using theirs).
    const mine = (await admin.listTopics()).filter((t) => t.startsWith(`kafka-test.${run}.`));
    if (mine.length > 0) await admin.deleteTopics({ topics: mine }).catch(() => undefined);
    await admin.disconnect();
  });

  it('creates topics with the configured partition counts (declared at connect, default on first use)', async () => {
    const declared = await admin.fetchTopicMetadata({ topics: [topic('declared')] });
    expect(declared.topics[0]!.partitions).toHaveLength(3);
    await bus.publish({ topic: topic('implicit'), key: 'k', value: enc('x') });
    const implicit = await admin.fetchTopicMetadata({ topics: [topic('implicit')] });
    expect(implicit.topics[0]!.partitions).toHaveLength(4);
  });

  it('refuses a message over the size limit at once (INTERNAL, not an outage) without failing its batch-mates', async () => {
    const t = topic('too-large');
    const small = bus.publish({ topic: t, key: 'k', value: enc('small') });
    await expect(bus.publish({ topic: t, key: 'k', value: new Uint8Array(1024 * 1024) })).rejects.toMatchObject({
      code: 'INTERNAL',
    });
    await small;
  });

  it('cuts send batches by bytes: many concurrent 200 KB messages of one key all arrive, in order', async () => {
    // 40 × 200 KB = 8 MB to one partition: one record batch would exceed the broker's 1 MB limit.
    const t = topic('big-batch');
    const n = 40;
    const value = (i: number): Uint8Array => {
      const v = new Uint8Array(200 * 1024).fill(i);
      return v;
    };
    await Promise.all(Array.from({ length: n }, (_, i) => bus.publish({ topic: t, key: 'same', value: value(i) })));
    const seen: number[] = [];
    const sub = await bus.subscribe(t, `big-${run}`, async (m) => {
      expect(m.value.byteLength).toBe(200 * 1024);
      seen.push(m.value[0]!);
      await Promise.resolve();
    });
    await expect.poll(() => seen.length, { timeout: 30_000 }).toBe(n);
    expect(seen).toEqual(Array.from({ length: n }, (_, i) => i));
    await sub.close();
  }, 60_000);

  it('delivers to a group that subscribes after the publish (a new group starts at the earliest offset)', async () => {
    const t = topic('late');
    await bus.publish({ topic: t, key: 'k', value: enc('early') });
    const seen: string[] = [];
    const sub = await bus.subscribe(t, `late-${run}`, async (m) => {
      seen.push(dec(m.value));
      await Promise.resolve();
    });
    await expect.poll(() => seen, { timeout: 20_000 }).toEqual(['early']);
    await sub.close();
  });

  it('holds later messages of a key back while an earlier one is being retried', async () => {
    const t = topic('retry-order');
    const seen: string[] = [];
    let failures = 0;
    const sub = await bus.subscribe(t, `ro-${run}`, async (m) => {
      await Promise.resolve();
      const v = dec(m.value);
      if (v === '1' && failures < 2) {
        failures += 1;
        throw new Error('transient');
      }
      seen.push(v);
    });
    for (const v of ['1', '2', '3']) await bus.publish({ topic: t, key: 'same', value: enc(v) });
    await expect.poll(() => seen, { timeout: 20_000 }).toEqual(['1', '2', '3']);
    expect(failures).toBe(2);
    await sub.close();
  });

  it('dead-letters a message after maxAttempts and goes on with the next one', async () => {
    const t = topic('poison');
    const seen: string[] = [];
    const sub = await bus.subscribe(t, `dl-${run}`, async (m) => {
      await Promise.resolve();
      if (dec(m.value) === 'poison') throw new Error('always');
      seen.push(dec(m.value));
    });
    await bus.publish({ topic: t, key: 'k', value: enc('poison') });
    await bus.publish({ topic: t, key: 'k', value: enc('after') });
    await expect.poll(() => seen, { timeout: 20_000 }).toEqual(['after']);
    expect(deadLetters.map((d) => [dec(d.message.value), d.group])).toEqual([['poison', `dl-${run}`]]);
    await sub.close();
  });

  it('commits what was handled: a later member of the group starts after it, without duplicates', async () => {
    const t = topic('commit');
    const group = `commit-${run}`;
    const first: string[] = [];
    const sub1 = await bus.subscribe(t, group, async (m) => {
      first.push(dec(m.value));
      await Promise.resolve();
    });
    for (let i = 0; i < 5; i++) await bus.publish({ topic: t, key: `k${i}`, value: enc(`a${i}`) });
    await expect.poll(() => first.length, { timeout: 20_000 }).toBe(5);
    await sub1.close();
    await bus.publish({ topic: t, key: 'k0', value: enc('b0') });
    const second: string[] = [];
    const sub2 = await bus.subscribe(t, group, async (m) => {
      second.push(dec(m.value));
      await Promise.resolve();
    });
    await expect.poll(() => second, { timeout: 20_000 }).toEqual(['b0']);
    await new Promise((r) => setTimeout(r, 500));
    expect(second).toEqual(['b0']);
    await sub2.close();
  });

  it('close() lets a running handler finish and commits it (graceful shutdown hands nothing back twice)', async () => {
    const t = topic('graceful');
    const group = `graceful-${run}`;
    let started!: () => void;
    const isStarted = new Promise<void>((resolve) => (started = resolve));
    const finished: string[] = [];
    const sub1 = await bus.subscribe(t, group, async (m) => {
      started();
      await new Promise((r) => setTimeout(r, 500));
      finished.push(dec(m.value));
    });
    await bus.publish({ topic: t, key: 'k', value: enc('slow') });
    await isStarted;
    await sub1.close();
    expect(finished).toEqual(['slow']);
    await bus.publish({ topic: t, key: 'k', value: enc('next') });
    const second: string[] = [];
    const sub2 = await bus.subscribe(t, group, async (m) => {
      second.push(dec(m.value));
      await Promise.resolve();
    });
    await expect.poll(() => second, { timeout: 20_000 }).toEqual(['next']);
    await sub2.close();
  });

  it('keeps group membership through a handler longer than the session timeout (handled once)', async () => {
    const slow = await KafkaBus.connect({
      brokers,
      clientId: 'kafka-test-slow',
      sessionTimeoutMs: 6_000,
      heartbeatIntervalMs: 500,
    });
    try {
      const t = topic('long-handler');
      const seen: string[] = [];
      const sub = await slow.subscribe(t, `long-${run}`, async (m) => {
        seen.push(dec(m.value));
        if (dec(m.value) === 'long') await new Promise((r) => setTimeout(r, 8_000));
      });
      await slow.publish({ topic: t, key: 'k', value: enc('long') });
      await slow.publish({ topic: t, key: 'k', value: enc('after') });
      await expect.poll(() => seen, { timeout: 30_000 }).toEqual(['long', 'after']);
      await new Promise((r) => setTimeout(r, 1_000));
      expect(seen).toEqual(['long', 'after']);
      await sub.close();
    } finally {
      await slow.close();
    }
  }, 60_000);

  it('redelivers to a new member a message whose consumer process died before committing', async () => {
    const t = topic('crash');
    const group = `crash-${run}`;
    await bus.publish({ topic: t, key: 'task-1', value: enc('run me') });
    // A separate Node process (the adapter bundled by esbuild) takes the message and exits mid-handler:
    // no commit, no LeaveGroup, like a killed runner.
    const dir = mkdtempSync(join(tmpdir(), 'kafka-crash-'));
    try {
      const bundle = join(dir, 'adapter.cjs');
      await build({
        entryPoints: [join(__dirname, '../src/index.ts')],
        bundle: true,
        platform: 'node',
        format: 'cjs',
        outfile: bundle,
        logLevel: 'silent',
      });
      const script = join(dir, 'child.cjs');
      writeFileSync(
        script,
        `const { KafkaBus } = require(${JSON.stringify(bundle)});
         (async () => {
           const bus = await KafkaBus.connect({ brokers: ${JSON.stringify(brokers)}, clientId: 'crashing-child', sessionTimeoutMs: 6000 });
           await bus.subscribe(${JSON.stringify(t)}, ${JSON.stringify(group)}, async (m) => {
             process.send({ got: Buffer.from(m.value).toString() }, () => process.exit(17));
             await new Promise(() => {});
           });
         })().catch((e) => { console.error(e); process.exit(1); });`,
      );
      const child = fork(script, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      const got = new Promise<string>((resolve) => child.on('message', (m: { got: string }) => resolve(m.got)));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(await got).toBe('run me');
      expect(await exited).toBe(17);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const seen: string[] = [];
    const sub = await bus.subscribe(t, group, async (m) => {
      seen.push(`${m.key}:${dec(m.value)}`);
      await Promise.resolve();
    });
    await expect.poll(() => seen, { timeout: 40_000 }).toEqual(['task-1:run me']);
    await sub.close();
  }, 90_000);

  it('refuses a topic name Kafka cannot hold as a programming error, not an outage', async () => {
    await expect(bus.publish({ topic: 'has space', key: 'k', value: enc('x') })).rejects.toMatchObject({
      code: 'INTERNAL',
    });
    await expect(bus.subscribe('x/y', 'g', async () => Promise.resolve())).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('closes idempotently and refuses to publish afterwards', async () => {
    const other = await KafkaBus.connect({ brokers, clientId: 'kafka-test-close' });
    await other.ping();
    await other.close();
    await other.close();
    await expect(other.publish({ topic: topic('closed'), key: 'k', value: enc('x') })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
    await expect(other.ping()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});
