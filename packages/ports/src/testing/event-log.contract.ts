import { setMaxListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventLog, LoggedEvent } from '../event-log';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

export interface EventLogContractOptions {
  /** Loses a stream's events as an engine restart without persistence would (the key is gone). */
  readonly lose?: (stream: string) => Promise<void>;
}

/** `factory(n)` may be called twice to get two clients of the same log (two replicas). */
export function describeEventLogContract(
  adapter: string,
  factory: () => Promise<EventLog>,
  options: EventLogContractOptions = {},
): void {
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

    it('appends past a gap only when allowGap says the events in between are lost, never at or below the last seq', async () => {
      const s = stream('gap');
      expect(await log.append(s, 1, enc('one'))).toBe(true);
      expect(await log.append(s, 4, enc('four'))).toBe(false);
      expect(await log.append(s, 4, enc('four'), { allowGap: true })).toBe(true);
      expect(await log.append(s, 4, enc('again'), { allowGap: true })).toBe(false);
      expect(await log.append(s, 3, enc('late'), { allowGap: true })).toBe(false);
      expect(await log.append(s, 5, enc('five'))).toBe(true);
      expect((await log.read(s, 0)).map((e) => [e.seq, dec(e.data)])).toEqual([
        [1, 'one'],
        [4, 'four'],
        [5, 'five'],
      ]);
      expect((await log.read(s, 2)).map((e) => e.seq)).toEqual([4, 5]);
      expect(await log.last(s)).toBe(5);
    });

    it('appends a batch of consecutive events at once, skipping the ones already there and refusing a gap', async () => {
      const s = stream('batch');
      const ev = (seq: number, d: string): LoggedEvent => ({ seq, data: enc(d) });
      expect(await log.appendBatch(s, [ev(1, 'a'), ev(2, 'b'), ev(3, 'c')])).toBe(3);
      // A redelivered batch that overlaps what is there appends only the new tail.
      expect(await log.appendBatch(s, [ev(2, 'b-again'), ev(3, 'c-again'), ev(4, 'd')])).toBe(1);
      expect(await log.appendBatch(s, [ev(3, 'c-again'), ev(4, 'd-again')])).toBe(0);
      // A gap, or seqs that are not consecutive, append nothing.
      expect(await log.appendBatch(s, [ev(6, 'f'), ev(7, 'g')])).toBe(0);
      expect(await log.appendBatch(s, [ev(5, 'e'), ev(7, 'g')])).toBe(0);
      expect(await log.appendBatch(s, [])).toBe(0);
      expect(await log.appendBatch(s, [ev(6, 'f'), ev(7, 'g')], { allowGap: true })).toBe(2);
      expect(await log.append(s, 8, enc('h'))).toBe(true);
      expect((await log.read(s, 0)).map((e) => [e.seq, dec(e.data)])).toEqual([
        [1, 'a'],
        [2, 'b'],
        [3, 'c'],
        [4, 'd'],
        [6, 'f'],
        [7, 'g'],
        [8, 'h'],
      ]);
    });

    it('a tail sees every event of a batch appended by another client, in order', async () => {
      const s = stream('batch-tail');
      await log.append(s, 1, enc('one'));
      const ac = new AbortController();
      const done = (async () => {
        const seen: string[] = [];
        for await (const e of other.tail(s, 1, ac.signal)) {
          seen.push(`${e.seq}:${dec(e.data)}`);
          if (e.seq >= 4) ac.abort();
        }
        return seen;
      })();
      await new Promise((r) => setTimeout(r, 100));
      const batch = [2, 3, 4].map((seq) => ({ seq, data: enc(`e${seq}`) }));
      expect(await log.appendBatch(s, batch)).toBe(3);
      expect(await done).toEqual(['2:e2', '3:e3', '4:e4']);
    }, 20_000);

    it('a tail that waits past a gap yields the event after it (the reader sees the jump in seq)', async () => {
      const s = stream('gap-tail');
      await log.append(s, 1, enc('one'));
      const ac = new AbortController();
      const done = (async () => {
        const seen: number[] = [];
        for await (const e of other.tail(s, 1, ac.signal)) {
          seen.push(e.seq);
          if (e.seq >= 6) ac.abort();
        }
        return seen;
      })();
      await new Promise((r) => setTimeout(r, 100));
      await log.append(s, 6, enc('six'), { allowGap: true });
      expect(await done).toEqual([6]);
    }, 20_000);

    it.runIf(Boolean(options.lose))(
      'a tail waiting while its stream is lost yields what the writer appends afterwards with the seq it knows',
      async () => {
        const s = stream('lost');
        await log.append(s, 1, enc('one'));
        await log.append(s, 2, enc('two'));
        const ac = new AbortController();
        const done = (async () => {
          const seen: string[] = [];
          for await (const e of other.tail(s, 0, ac.signal)) {
            seen.push(`${e.seq}:${dec(e.data)}`);
            if (e.seq >= 4) ac.abort();
          }
          return seen;
        })();
        await new Promise((r) => setTimeout(r, 100));
        await options.lose!(s);
        expect(await log.last(s)).toBe(0);
        // A strict append of the next seq is refused (the log looks empty): the writer appends what its store knows.
        expect(await log.append(s, 3, enc('three'))).toBe(false);
        expect(await log.append(s, 3, enc('three'), { allowGap: true })).toBe(true);
        expect(await log.append(s, 4, enc('four'))).toBe(true);
        expect(await done).toEqual(['1:one', '2:two', '3:three', '4:four']);
      },
      20_000,
    );

    it("serves a thousand concurrent tails from one client, each getting its own stream's events", async () => {
      const n = 1000;
      const ac = new AbortController();
      setMaxListeners(n + 10, ac.signal);
      const streams = Array.from({ length: n }, (_, i) => stream(`many:${i}`));
      const tails = streams.map(async (s) => {
        for await (const e of other.tail(s, 0, ac.signal)) return dec(e.data);
        return undefined;
      });
      await new Promise((r) => setTimeout(r, 300));
      await Promise.all(streams.map((s, i) => log.append(s, 1, enc(`event ${i}`))));
      const got = await Promise.all(tails);
      ac.abort();
      expect(got).toEqual(streams.map((_, i) => `event ${i}`));
    }, 60_000);

    it('keeps streams apart', async () => {
      await log.append(stream('x'), 1, enc('x'));
      expect(await log.read(stream('y'), 0)).toEqual([]);
      await log.expire(stream('x'), 60_000);
      expect(await log.last(stream('x'))).toBe(1);
      await log.ping();
    });

    it('sets the retention with an append that appends, and only then', async () => {
      const kept = stream('retain-kept');
      const gone = stream('retain-gone');
      await log.appendBatch(kept, [{ seq: 1, data: enc('a') }]);
      await log.append(gone, 1, enc('a'));
      // A redelivery appends nothing: the stream keeps its (lack of) retention.
      expect(await log.appendBatch(kept, [{ seq: 1, data: enc('a') }], { expireAfterMs: 1 })).toBe(0);
      // A final batch: appended, and the stream expires 1 ms later.
      expect(await log.appendBatch(gone, [{ seq: 2, data: enc('b') }], { expireAfterMs: 1 })).toBe(1);
      await new Promise((r) => setTimeout(r, 50));
      expect(await log.last(kept)).toBe(1);
      expect(await log.last(gone)).toBe(0);
      expect(await log.read(gone, 0)).toEqual([]);
    });
  });
}
