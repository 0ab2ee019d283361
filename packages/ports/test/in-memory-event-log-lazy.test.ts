import { describe, expect, it } from 'vitest';
import { acceptsLazyEvents } from '../src/event-log';
import { InMemoryEventLog } from '../src/memory/in-memory-event-log';

/** Events appended unencoded (ADR 0067): their bytes are made at the first read, once, and equal an eager append's. */
describe('in-memory event log, lazily encoded events', () => {
  // One buffer reused by every encode, as the hot path's shared protobuf writer reuses its own.
  const shared = new Uint8Array(4);
  const calls: number[] = [];
  const lazy = (seq: number) => ({
    seq,
    encode: () => {
      calls.push(seq);
      shared.fill(seq);
      return shared.subarray(0, 2);
    },
  });

  it('encodes nothing at the append, each event once at its first read, to the bytes an eager append keeps', async () => {
    calls.length = 0;
    const log = new InMemoryEventLog();
    expect(acceptsLazyEvents(log)).toBe(true);
    expect(await log.appendBatchLazy('t', [lazy(1), lazy(2), lazy(3)])).toBe(3);
    expect(calls).toEqual([]);
    expect(await log.last('t')).toBe(3);
    expect(calls).toEqual([]);

    const first = await log.read('t', 1);
    expect(calls).toEqual([2, 3]);
    expect(first.map((e) => [e.seq, [...e.data]])).toEqual([
      [2, [2, 2]],
      [3, [3, 3]],
    ]);
    // Later encodes overwrite the encoder's buffer; what was read and what is kept stay as they were.
    first[0]!.data[0] = 99;
    const all: [number, number[]][] = [];
    const stop = new AbortController();
    for await (const e of log.tail('t', 0, stop.signal)) {
      all.push([e.seq, [...e.data]]);
      if (e.seq === 3) stop.abort();
    }
    expect(all).toEqual([
      [1, [1, 1]],
      [2, [2, 2]],
      [3, [3, 3]],
    ]);
    expect(calls).toEqual([2, 3, 1]);
    await log.close();
  });

  it('refuses a duplicate or a gap as an eager append does, and never encodes what it refused', async () => {
    calls.length = 0;
    const log = new InMemoryEventLog();
    expect(await log.appendBatchLazy('t', [lazy(2)])).toBe(0);
    expect(await log.appendBatch('t', [{ seq: 1, data: new Uint8Array([1]) }])).toBe(1);
    expect(await log.appendBatchLazy('t', [lazy(1), lazy(2)])).toBe(1); // 1 is there: only 2 is new
    expect(await log.appendBatchLazy('t', [lazy(4)])).toBe(0);
    expect(await log.appendBatchLazy('t', [lazy(4)], { allowGap: true })).toBe(1);
    expect((await log.read('t', 0)).map((e) => [e.seq, [...e.data]])).toEqual([
      [1, [1]],
      [2, [2, 2]],
      [4, [4, 4]],
    ]);
    expect(calls).toEqual([2, 4]);
    await log.close();
  });
});
