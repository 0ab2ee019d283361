import { describe, expect, it } from 'vitest';
import {
  InMemoryBlobStore,
  LargePayloads,
  spillRefOf,
  isSpilled,
  jsonBytes,
  jsonBytesBound,
  mentionsSpill,
  resolvedBytes,
  type PartLike,
} from '../src/index';

type Part = PartLike & { data?: Record<string, unknown> };
const text = (t: string, metadata?: Record<string, unknown>): Part => ({
  kind: 'text',
  text: t,
  ...(metadata ? { metadata } : {}),
});

function setup(limits = {}) {
  const blobs = new InMemoryBlobStore();
  return { blobs, payloads: new LargePayloads(blobs, limits) };
}

describe('LargePayloads: spilling large parts out of documents and bus messages', () => {
  it('leaves a part list under the inline budget untouched (no blob written)', async () => {
    const { payloads } = setup();
    const parts = [text('hello'), { kind: 'data', data: { a: 1 } }];
    expect(await payloads.compactParts(parts, 'sub-1')).toEqual(parts);
  });

  it('spills a 600k-character text part to a reference and resolves it back intact, metadata included', async () => {
    const { payloads } = setup();
    const big = text('é'.repeat(600_000), { 'a.b': 1, $x: 'y' });
    const [stored] = await payloads.compactParts([big], 'sub-1');
    expect(isSpilled(stored!)).toBe(true);
    expect(stored).toMatchObject({ kind: 'text', text: '' });
    expect(jsonBytes(stored)).toBeLessThan(300);
    expect(mentionsSpill(JSON.stringify(stored))).toBe(true);
    expect(resolvedBytes(stored!)).toBe(jsonBytes(big));
    expect(await payloads.resolvePart(stored!, 'sub-1')).toEqual(big);
  });

  it('spills the largest parts first, until the list fits the budget, keeping order and small parts inline', async () => {
    const { payloads } = setup({ inlinePartsBytes: 10_000 });
    const parts: Part[] = [text('a'.repeat(6_000)), text('small'), { kind: 'data', data: { blob: 'b'.repeat(8_000) } }];
    const stored = await payloads.compactParts(parts, 'sub-1');
    expect(stored.map(isSpilled)).toEqual([false, false, true]);
    expect(stored[2]).toMatchObject({ kind: 'data', data: {} });
    expect(await payloads.resolveParts(stored, 'sub-1')).toEqual(parts);
  });

  it('a reference resolves only for its owner (another subscription gets an error, never the content)', async () => {
    const { payloads } = setup();
    const [stored] = await payloads.compactParts([text('x'.repeat(50_000))], 'sub-A');
    await expect(payloads.resolvePart(stored!, 'sub-B')).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('appends text deltas across spilled and inline parts: the resolved text is every delta in order', async () => {
    const { payloads } = setup({ inlinePartsBytes: 4_000 });
    const deltas = ['a'.repeat(5_000), 'b'.repeat(10), 'c'.repeat(9_000), 'd'.repeat(3)];
    let artifact: Part[] = [];
    for (const d of deltas) {
      const [p] = await payloads.compactParts([text(d)], 'sub-1');
      const last = artifact.at(-1);
      artifact = last ? [await payloads.appendText(last, p!, 'sub-1')] : [p!];
      artifact = await payloads.compactParts(artifact, 'sub-1');
    }
    expect(artifact).toHaveLength(1);
    expect(isSpilled(artifact[0]!)).toBe(true);
    expect(jsonBytes(artifact)).toBeLessThan(4_000);
    expect(resolvedBytes(artifact[0]!)).toBeGreaterThanOrEqual(deltas.join('').length);
    expect((await payloads.resolvePart(artifact[0]!, 'sub-1')).text).toBe(deltas.join(''));
  });

  it('inline deltas after a spilled part stay in a tail until the list is compacted again', async () => {
    const { payloads } = setup({ inlinePartsBytes: 2_000 });
    const [head] = await payloads.compactParts([text('h'.repeat(3_000))], 'sub-1');
    const withTail = await payloads.appendText(head!, text('tail'), 'sub-1');
    expect(spillRefOf(withTail)).toMatchObject({ tail: 'tail' });
    expect((await payloads.resolvePart(withTail, 'sub-1')).text).toBe(`${'h'.repeat(3_000)}tail`);
    // A long tail is spilled as a further chunk by the next compaction.
    const longTail = await payloads.appendText(withTail, text('t'.repeat(3_000)), 'sub-1');
    const [compacted] = await payloads.compactParts([longTail], 'sub-1');
    const ref = spillRefOf(compacted!)!;
    expect(ref.chunks).toHaveLength(2);
    expect(ref.tail).toBeUndefined();
    expect((await payloads.resolvePart(compacted!, 'sub-1')).text).toBe(`${'h'.repeat(3_000)}tail${'t'.repeat(3_000)}`);
  });

  it('stores and reads any JSON value (a run input too large for a bus message)', async () => {
    const { payloads } = setup();
    const input = { messageJson: '{"a":1}', historyJson: '[]' };
    const ref = await payloads.putJson(input, 'sub-1');
    expect(ref.bytes).toBe(jsonBytes(input));
    expect(await payloads.getJson(ref.id, 'sub-1')).toEqual(input);
  });
});

describe('jsonBytes', () => {
  it("counts the UTF-8 bytes of the value's JSON (multi-byte text, escapes, lone surrogates)", () => {
    const enc = new TextEncoder();
    for (const v of [
      text('plain'),
      text('héllo wörld ✓ 🎉'),
      text('tab\tquote"back\\slash\u0001'),
      text('\ud800 lone'),
      { kind: 'data', data: { n: 1.5, list: [null, true, 'ü'] } },
    ])
      expect(jsonBytes(v)).toBe(enc.encode(JSON.stringify(v)).byteLength);
    expect(jsonBytes(text('🎉'))).toBe(JSON.stringify(text('')).length + 4);
  });
});

describe('jsonBytesBound (the size test that spares serialising small part lists)', () => {
  const values: unknown[] = [
    text('plain'),
    text('héllo wörld ✓ 🎉'),
    text('\u0001\u0002\u001f'.repeat(50)),
    text('\ud800\udfff\ud800'.repeat(30)),
    text('"\\'.repeat(40)),
    { kind: 'data', data: { n: -1.7976931348623157e308, m: -0.0000012345678901234567, big: -123456789012345680000 } },
    { kind: 'data', data: { list: [null, true, false, undefined, 'ü', [[], {}]], skipped: undefined } },
    { kind: 'data', data: { when: new Date(0), '\u0001key"': 1, ['__proto__']: { a: 1 } } },
    JSON.parse('{"kind":"data","data":{"__proto__":{"x":"\\u0000"}}}'),
  ];
  it('is never below the exact size of the JSON (escapes, surrogates, long numbers, toJSON, __proto__ keys)', () => {
    for (const v of values) expect(jsonBytesBound(v, Number.MAX_SAFE_INTEGER)).toBeGreaterThanOrEqual(jsonBytes(v));
  });
  it('compacts a list just over the limit exactly as the exact sizes say (control characters count 6 bytes each)', async () => {
    // 400 control characters: 400 code units, 2,400 bytes of JSON (each escaped as \u00XX): over a 2,000-byte limit.
    const { payloads } = setup({ inlinePartsBytes: 2_000, minSpillBytes: 100 });
    const parts = [text('\u0001'.repeat(400))];
    expect(jsonBytes(parts[0])).toBeGreaterThan(2_000);
    const out = await payloads.compactParts(parts, 'sub-1');
    expect(isSpilled(out[0]!)).toBe(true);
    const under = [text('a'.repeat(300)), text('b'.repeat(300))];
    expect(await payloads.compactParts(under, 'sub-1')).toEqual(under);
  });
});
