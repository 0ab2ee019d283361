import { describe, expect, it } from 'vitest';
import { cloneJson } from '../src/memory/json';

describe('cloneJson (the in-memory adapters copy every document in and out with it)', () => {
  it('copies plain objects and arrays deeply: no shared reference at any depth', () => {
    const doc = { a: 1, s: 'x', n: null, b: true, list: [{ k: [1, 2, { deep: 'yes' }] }], nested: { m: { z: 0 } } };
    const out = cloneJson(doc);
    expect(out).toEqual(doc);
    expect(out).not.toBe(doc);
    expect(out.list).not.toBe(doc.list);
    expect(out.list[0]).not.toBe(doc.list[0]);
    expect(out.list[0]!.k[2]).not.toBe(doc.list[0]!.k[2]);
    expect(out.nested.m).not.toBe(doc.nested.m);
    (out.list[0]!.k[2] as { deep: string }).deep = 'changed';
    expect((doc.list[0]!.k[2] as { deep: string }).deep).toBe('yes');
  });

  it('keeps what structuredClone kept: undefined fields, a "__proto__" key as an own property, and other types', () => {
    const withProto = JSON.parse('{"__proto__":{"polluted":true},"ok":1}') as Record<string, unknown>;
    const out = cloneJson({ u: undefined, meta: withProto, when: new Date(5), bytes: new Uint8Array([1, 2]) });
    expect(Object.keys(out)).toEqual(['u', 'meta', 'when', 'bytes']);
    expect(Object.prototype.hasOwnProperty.call(out.meta, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(out.meta)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(out.meta).toEqual(structuredClone(withProto));
    expect(out.when).toEqual(new Date(5));
    expect(out.bytes).toEqual(new Uint8Array([1, 2]));
  });

  it('primitives come back as they are', () => {
    for (const v of [0, 'a', null, true, undefined]) expect(cloneJson(v)).toBe(v);
  });
});

describe('InMemoryDocumentStore writes copy once', () => {
  it("a write hands back the caller's own document; the store keeps its copy, so neither side can change the other", async () => {
    const { InMemoryDocumentStore } = await import('../src/memory/in-memory-document-store');
    const store = new InMemoryDocumentStore();
    const c = await store.collection<{ n: number; list: number[] }>({ name: 'writes' });
    const doc = { n: 1, list: [1] };
    const inserted = await c.insert('a', doc);
    expect(inserted.doc).toBe(doc); // no second copy
    doc.list.push(2);
    inserted.doc.n = 99;
    expect((await c.get('a'))!.doc).toEqual({ n: 1, list: [1] });
    const next = { n: 2, list: [1, 2] };
    const replaced = await c.replace('a', inserted.version, next);
    expect(replaced.doc).toBe(next);
    expect(replaced.version).toBe(2);
    next.list.length = 0;
    expect((await c.get('a'))!.doc).toEqual({ n: 2, list: [1, 2] });
  });
});
