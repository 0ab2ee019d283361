import { describe, expect, it } from 'vitest';
import { memoryWindow } from '../../src/domain/memory';

const msg = (id: string, chars: number, spilledBytes?: number) => ({
  messageId: id,
  parts: [
    spilledBytes === undefined
      ? { kind: 'text', text: 'x'.repeat(chars) }
      : { kind: 'text', text: '', a2aInboundBlob: { chunks: [{ id: `blob-${id}`, bytes: spilledBytes }] } },
  ],
});

describe('conversation memory window', () => {
  it('keeps the latest messages up to the count, oldest first', () => {
    const all = ['a', 'b', 'c', 'd'].map((id) => msg(id, 10));
    expect(memoryWindow(all, { maxMessages: 2, maxBytes: 1e6 }).map((m) => m.messageId)).toEqual(['c', 'd']);
  });

  it('stops at the byte budget, counting spilled parts at their full size (the window stays contiguous)', () => {
    const all = [msg('old', 10), msg('huge', 0, 3_000_000), msg('recent', 100), msg('latest', 100)];
    const w = memoryWindow(all, { maxMessages: 20, maxBytes: 1_000_000 });
    expect(w.map((m) => m.messageId)).toEqual(['recent', 'latest']);
  });

  it('a context whose newest message is larger than the budget gets an empty memory, never an oversized one', () => {
    const all = [msg('a', 10), msg('huge', 0, 5_000_000)];
    expect(memoryWindow(all, { maxMessages: 20, maxBytes: 4 * 1024 * 1024 })).toEqual([]);
  });

  it('takes everything that fits both bounds', () => {
    const all = [msg('a', 10), msg('b', 10)];
    expect(memoryWindow(all, { maxMessages: 20, maxBytes: 1e6 })).toEqual(all);
    expect(memoryWindow(all, { maxMessages: 0, maxBytes: 1e6 })).toEqual([]);
  });
});
