import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bus, BusMessage } from '../bus';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

async function until(cond: () => boolean, timeoutMs = 20_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** `factory` returns a bus; `topic(name)` makes a topic name unique to this run (real engines keep data). */
export function describeBusContract(
  adapter: string,
  factory: () => Promise<Bus>,
  options: { timeoutMs?: number; deliversAfterPublishResolves?: boolean } = {},
): void {
  const timeout = options.timeoutMs ?? 20_000;
  describe(`Bus contract: ${adapter}`, () => {
    let bus: Bus;
    const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`;
    const topic = (n: string): string => `contract.${run}.${n}`;
    beforeAll(async () => {
      bus = await factory();
    });
    afterAll(async () => {
      await bus.close();
    });

    it(
      'never runs a handler inside publish()',
      async () => {
        const t = topic('async');
        let handled = 0;
        let insidePublishCall = false;
        let ranInsidePublishCall = false;
        const sub = await bus.subscribe(t, 'g', async () => {
          if (insidePublishCall) ranInsidePublishCall = true;
          handled += 1;
          await Promise.resolve();
        });
        insidePublishCall = true;
        const published = bus.publish({ topic: t, key: 'k', value: enc('x') });
        insidePublishCall = false;
        await published;
        // Never in the publisher's stack. An in-process adapter also must not deliver before the awaiting
        // caller resumes (the microtask trap of code-style-anchors §4.3); over a network the consumer's fetch and the
        // producer's ack race, so only the first rule holds there.
        expect(ranInsidePublishCall).toBe(false);
        if (options.deliversAfterPublishResolves) expect(handled).toBe(0);
        await until(() => handled === 1, timeout);
        await sub.close();
      },
      timeout + 10_000,
    );

    it(
      'keeps per-key order and delivers every message to each group',
      async () => {
        const t = topic('order');
        const seenA: string[] = [];
        const seenB: string[] = [];
        const subA = await bus.subscribe(t, 'A', async (m) => {
          seenA.push(`${m.key}:${dec(m.value)}`);
          await Promise.resolve();
        });
        const subB = await bus.subscribe(t, 'B', async (m) => {
          seenB.push(`${m.key}:${dec(m.value)}`);
          await Promise.resolve();
        });
        for (let i = 0; i < 20; i++) {
          await bus.publish({ topic: t, key: `k${i % 3}`, value: enc(String(i)), headers: { h: 'v' } });
        }
        await until(() => seenA.length === 20 && seenB.length === 20, timeout);
        for (const seen of [seenA, seenB]) {
          for (const key of ['k0', 'k1', 'k2']) {
            const values = seen.filter((s) => s.startsWith(`${key}:`)).map((s) => Number(s.split(':')[1]));
            expect(values).toEqual([...values].sort((a, b) => a - b));
          }
        }
        await subA.close();
        await subB.close();
      },
      timeout + 10_000,
    );

    it(
      'redelivers a message whose handler threw (at-least-once)',
      async () => {
        const t = topic('retry');
        let attempts = 0;
        const received: BusMessage[] = [];
        const sub = await bus.subscribe(t, 'g', async (m) => {
          attempts += 1;
          await Promise.resolve();
          if (attempts === 1) throw new Error('transient');
          received.push(m);
        });
        await bus.publish({ topic: t, key: 'k', value: enc('once'), headers: { trace: 'abc' } });
        await until(() => received.length === 1, timeout);
        expect(attempts).toBe(2);
        expect(dec(received[0]!.value)).toBe('once');
        expect(received[0]!.headers?.trace).toBe('abc');
        await sub.close();
      },
      timeout + 10_000,
    );

    it(
      'shares a group between two members without handling a message twice',
      async () => {
        const t = topic('share');
        const seen: string[] = [];
        const h = async (m: BusMessage): Promise<void> => {
          seen.push(dec(m.value));
          await Promise.resolve();
        };
        const s1 = await bus.subscribe(t, 'shared', h);
        const s2 = await bus.subscribe(t, 'shared', h);
        for (let i = 0; i < 10; i++) await bus.publish({ topic: t, key: `key-${i}`, value: enc(String(i)) });
        await until(() => seen.length >= 10, timeout);
        await new Promise((r) => setTimeout(r, 300));
        expect([...seen].sort()).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
        await s1.close();
        await s2.close();
      },
      timeout + 20_000,
    );

    it(
      'with concurrency, a slow message holds back neither other keys nor its partition; one key stays in order',
      async () => {
        const t = topic('concurrent');
        let release!: () => void;
        const gate = new Promise<void>((r) => (release = r));
        const seen: string[] = [];
        let slowDone = false;
        const sub = await bus.subscribe(
          t,
          'g',
          async (m) => {
            if (m.key === 'slow') {
              await gate;
              slowDone = true;
              return;
            }
            seen.push(`${m.key}:${dec(m.value)}`);
            await Promise.resolve();
          },
          { concurrency: 16 },
        );
        await bus.publish({ topic: t, key: 'slow', value: enc('0') });
        // 30 keys over the partitions: several share the slow key's partition.
        for (let i = 0; i < 90; i++) await bus.publish({ topic: t, key: `k${i % 30}`, value: enc(String(i)) });
        await until(() => seen.length === 90, timeout);
        expect(slowDone).toBe(false);
        for (let k = 0; k < 30; k++) {
          const values = seen.filter((s) => s.startsWith(`k${k}:`)).map((s) => Number(s.split(':')[1]));
          expect(values).toEqual([k, k + 30, k + 60]);
        }
        release();
        await until(() => slowDone, timeout);
        await sub.close();
      },
      timeout + 10_000,
    );

    it(
      'with concurrency, an unfinished message is redelivered to the next member when its handler fails on close',
      async () => {
        const t = topic('handback');
        let fail!: (e: Error) => void;
        const gate = new Promise<void>((_, reject) => (fail = reject));
        let started = false;
        let fastHandled = 0;
        const s1 = await bus.subscribe(
          t,
          'g',
          async (m) => {
            if (m.key === 'slow') {
              started = true;
              await gate;
            }
            fastHandled += 1;
          },
          { concurrency: 8 },
        );
        await bus.publish({ topic: t, key: 'slow', value: enc('run') });
        for (let i = 0; i < 5; i++) await bus.publish({ topic: t, key: `f${i}`, value: enc(String(i)) });
        await until(() => started && fastHandled === 5, timeout);
        const closing = s1.close();
        fail(new Error('handed back on shutdown'));
        await closing;
        const again: string[] = [];
        const s2 = await bus.subscribe(
          t,
          'g',
          async (m) => {
            again.push(m.key);
            await Promise.resolve();
          },
          { concurrency: 8 },
        );
        await until(() => again.includes('slow'), timeout);
        await s2.close();
      },
      timeout + 20_000,
    );

    it(
      'retries a transient failure (outage) for as long as it lasts: it never dead-letters the message',
      async () => {
        const t = topic('outage');
        let attempts = 0;
        let handled = false;
        const outage = new Error('engine unavailable');
        const sub = await bus.subscribe(
          t,
          'g',
          async () => {
            attempts += 1;
            await Promise.resolve();
            if (attempts <= 14) throw outage; // more than any adapter's attempt limit in these suites
            handled = true;
          },
          { concurrency: 4, isTransient: (e) => e === outage },
        );
        await bus.publish({ topic: t, key: 'k', value: enc('x') });
        await until(() => handled, timeout * 2);
        expect(attempts).toBe(15);
        await sub.close();
      },
      timeout * 2 + 10_000,
    );

    it('answers ping while open', async () => {
      await bus.ping();
    });
  });
}
