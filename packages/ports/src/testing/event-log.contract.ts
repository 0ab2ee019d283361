import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventLog, LoggedEvent } from '../event-log';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

/** `factory(n)` may be called twice to get two clients of the same log (two replicas). */
export function describeEventLogContract(adapter: string, factory: () => Promise<EventLog>): void {
  describe(`EventLog contract: ${adapter}`, () => {
    let log: EventLog;
    let other: EventLog;
    const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`;
    const stream = (n: string): string => `contract:${run}:${n}`;
    beforeAll(async () => {
      log = await factory();
      other = await factory();
    });
    afterAll(async () => {
      await log.close();
      if (other !== log) await other.close();
    });

    it('appends in sequence and refuses duplicates and gaps idempotently', async () => {
      const s = stream('seq');
      expect(await log.last(s)).toBe(0);
      expect(await log.append(s, 1, enc('a'))).toBe(true);
      expect(await log.append(s, 1, enc('a-again'))).toBe(false);
      expect(await log.append(s, 3, enc('gap'))).toBe(false);
      expect(await log.append(s, 2, enc('b'))).toBe(true);
      expect(await log.last(s)).toBe(2);
      const events = await log.read(s, 0);
      expect(events.map((e) => [e.seq, dec(e.data)])).toEqual([
        [1, 'a'],
        [2, 'b'],
      ]);
      expect((await log.read(s, 1)).map((e) => e.seq)).toEqual([2]);
    });

    it('replays from a sequence number and then tails live events appended by another client', async () => {
      const s = stream('tail');
      await log.append(s, 1, enc('one'));
      await log.append(s, 2, enc('two'));
      const ac = new AbortController();
      const got: LoggedEvent[] = [];
      const done = (async () => {
        for await (const e of other.tail(s, 1, ac.signal)) {
          got.push(e);
          if (e.seq === 4) ac.abort();
        }
      })();
      await new Promise((r) => setTimeout(r, 100));
      await log.append(s, 3, enc('three'));
      await log.append(s, 4, enc('four'));
      await done;
      expect(got.map((e) => dec(e.data))).toEqual(['two', 'three', 'four']);
    }, 20_000);

    it('ends a tail when its signal aborts while waiting', async () => {
      const s = stream('abort');
      const ac = new AbortController();
      const done = (async () => {
        const seen: number[] = [];
        for await (const e of log.tail(s, 0, ac.signal)) seen.push(e.seq);
        return seen;
      })();
      setTimeout(() => ac.abort(), 100);
      expect(await done).toEqual([]);
    }, 20_000);

    it('keeps streams apart', async () => {
      await log.append(stream('x'), 1, enc('x'));
      expect(await log.read(stream('y'), 0)).toEqual([]);
      await log.expire(stream('x'), 60_000);
      expect(await log.last(stream('x'))).toBe(1);
      await log.ping();
    });
  });
}
