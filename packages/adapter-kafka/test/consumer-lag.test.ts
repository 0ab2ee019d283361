import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { KafkaBus } from '../src/index';

// consumerLag() feeds the a2a_bus_consumer_lag metric; real broker only (KAFKA_BROKERS).
const brokers = process.env.KAFKA_BROKERS ?? '';
const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`;
const topic = `lag-test.${run}.work`;

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.runIf(Boolean(brokers))('KafkaBus consumerLag', () => {
  let bus: KafkaBus;
  const admin = new Kafka({
    clientId: 'lag-test-admin',
    brokers: brokers.split(','),
    logLevel: logLevel.NOTHING,
  }).admin();
  beforeAll(async () => {
    bus = await KafkaBus.connect({ brokers, clientId: 'lag-test', topics: [{ name: topic, partitions: 2 }] });
    await admin.connect();
  });
  afterAll(async () => {
    await bus.close();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  });

  it('counts the messages a group has not handled yet, per group and topic, and drops to 0 once they are', async () => {
    expect(await bus.consumerLag()).toEqual([]);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let handled = 0;
    const sub = await bus.subscribe(topic, 'lag-group', async () => {
      await gate;
      handled++;
    });
    // One key: handled in order, so every message waits behind the first (held by the gate).
    for (let i = 0; i < 5; i++) await bus.publish({ topic, key: 'k', value: new TextEncoder().encode(`m${i}`) });
    await until('lag of 5 reported', async () => (await bus.consumerLag())[0]?.lag === 5);
    expect(await bus.consumerLag()).toEqual([{ group: 'lag-group', topic, lag: 5 }]);
    release();
    await until('all handled', async () => handled === 5);
    await until('lag back to 0 once committed', async () => (await bus.consumerLag())[0]?.lag === 0);
    await sub.close();
    expect(await bus.consumerLag()).toEqual([]);
  }, 60_000);
});
