import { describe, expect, it } from 'vitest';
import { InMemoryEventLog } from '../src/memory/in-memory-event-log';

const event = (seq: number) => ({ seq, data: new Uint8Array([seq]) });

describe('in-memory event log, full', () => {
  it('makes room by dropping the oldest stream no tail waits on', async () => {
    const log = new InMemoryEventLog({ maxStreams: 3 });
    const tailing = new AbortController();
    await log.append('a', 1, event(1).data);
    const tail = log.tail('a', 1, tailing.signal)[Symbol.asyncIterator]();
    const next = tail.next(); // waits on `a`
    await new Promise((r) => setImmediate(r));
    await log.append('b', 1, event(1).data);
    await log.append('c', 1, event(1).data);
    await log.append('d', 1, event(1).data); // full: `b` goes, `a` has a tail
    expect(await log.last('a')).toBe(1);
    expect(await log.last('b')).toBe(0);
    expect(await log.last('c')).toBe(1);
    expect(await log.last('d')).toBe(1);
    tailing.abort();
    await next;
    await log.close();
  });

  it('stays cheap per new stream once full (no walk over every stream per append)', async () => {
    const n = 30_000;
    const log = new InMemoryEventLog({ maxStreams: n });
    for (let i = 0; i < n; i++) await log.append(`s${i}`, 1, event(1).data);
    const started = performance.now();
    for (let i = n; i < 2 * n; i++) await log.append(`s${i}`, 1, event(1).data);
    // A walk of the full map per append (the old eviction) is 900 M steps here: many seconds.
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(await log.last('s0')).toBe(0);
    expect(await log.last(`s${2 * n - 1}`)).toBe(1);
    await log.close();
  }, 60_000);
});
