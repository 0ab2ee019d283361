import { describe, expect, it } from 'vitest';
import { cloneJson, NOT_PLAIN, sealJson } from '../src/memory/json';

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

describe('sealJson (the in-memory document store keeps and hands out sealed documents)', () => {
  it('makes a deeply frozen copy that the source can no longer change', () => {
    const doc = { a: 1, list: [{ k: [1, { deep: 'yes' }] }], nested: { m: { z: 0 } } };
    const out = sealJson(doc) as typeof doc;
    expect(out).toEqual(doc);
    expect(out).not.toBe(doc);
    for (const v of [out, out.list, out.list[0], out.list[0]!.k, out.list[0]!.k[1], out.nested, out.nested.m])
      expect(Object.isFrozen(v)).toBe(true);
    (doc.list[0]!.k[1] as { deep: string }).deep = 'changed';
    expect((out.list[0]!.k[1] as { deep: string }).deep).toBe('yes');
    expect(() => {
      out.nested.m.z = 1;
    }).toThrow(TypeError);
  });

  it('shares what it sealed before and copies only what is new', () => {
    const first = sealJson({ ring: [{ id: 'a' }, { id: 'b' }], other: { x: 1 } }) as {
      ring: { id: string }[];
      other: { x: number };
    };
    const next = sealJson({ ...first, ring: [...first.ring.slice(1), { id: 'c' }] }) as typeof first;
    expect(next.other).toBe(first.other);
    expect(next.ring[0]).toBe(first.ring[1]);
    expect(Object.isFrozen(next.ring[1])).toBe(true);
    expect(sealJson(next)).toBe(next);
  });

  it('answers NOT_PLAIN for anything but plain JSON, and keeps a "__proto__" key as an own property', () => {
    expect(sealJson({ when: new Date(5) })).toBe(NOT_PLAIN);
    expect(sealJson([new Uint8Array([1])])).toBe(NOT_PLAIN);
    const withProto = JSON.parse('{"__proto__":{"polluted":true},"ok":1}') as Record<string, unknown>;
    const out = sealJson(withProto) as Record<string, unknown>;
    expect(Object.prototype.hasOwnProperty.call(out, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    for (const v of [0, 'a', null, true, undefined]) expect(sealJson(v)).toBe(v);
  });
});

describe('InMemoryDocumentStore: read-only documents, no copy per read', () => {
  it('a write and the reads after it hand out the one sealed document; neither the writer nor a reader can change it', async () => {
    const { InMemoryDocumentStore } = await import('../src/memory/in-memory-document-store');
    const store = new InMemoryDocumentStore();
    const c = await store.collection<{ n: number; list: number[] }>({ name: 'writes' });
    const doc = { n: 1, list: [1] };
    const inserted = await c.insert('a', doc);
    expect(inserted.doc).not.toBe(doc);
    expect(Object.isFrozen(inserted.doc) && Object.isFrozen(inserted.doc.list)).toBe(true);
    doc.list.push(2);
    expect(() => {
      inserted.doc.n = 99;
    }).toThrow(TypeError);
    const read = (await c.get('a'))!;
    expect(read.doc).toBe(inserted.doc); // no copy per read
    expect(read.doc).toEqual({ n: 1, list: [1] });
    expect(() => read.doc.list.push(3)).toThrow(TypeError);
    const next = { ...read.doc, n: 2 };
    const replaced = await c.replace('a', read.version, next);
    expect(replaced.version).toBe(2);
    expect(replaced.doc.list).toBe(read.doc.list); // the unchanged part is shared, not copied
    next.n = 5;
    expect((await c.get('a'))!.doc).toEqual({ n: 2, list: [1] });
    expect(await c.find({}, {})).toEqual([expect.objectContaining({ doc: replaced.doc })]);
    expect((await c.find({}))[0]!.doc).toBe(replaced.doc);
  });

  it('a document that is not plain JSON is kept as a private copy and copied out, as before', async () => {
    const { InMemoryDocumentStore } = await import('../src/memory/in-memory-document-store');
    const store = new InMemoryDocumentStore();
    const c = await store.collection<{ when: Date; list: number[] }>({ name: 'odd' });
    const doc = { when: new Date(5), list: [1] };
    const inserted = await c.insert('a', doc);
    expect(inserted.doc).toBe(doc);
    doc.list.push(2);
    const read = (await c.get('a'))!;
    expect(read.doc).toEqual({ when: new Date(5), list: [1] });
    read.doc.list.push(9);
    expect((await c.get('a'))!.doc.list).toEqual([1]);
  });
});
