import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import type { BlobStore } from '../blob-store';

export function describeBlobStoreContract(adapter: string, factory: () => Promise<BlobStore>): void {
  describe(`BlobStore contract: ${adapter}`, () => {
    let store: BlobStore;
    beforeAll(async () => {
      store = await factory();
    });
    afterAll(async () => {
      await store.close();
    });

    it('stores and returns the exact bytes with size and sha256', async () => {
      const data = randomBytes(300_000);
      const ref = await store.put(data, { owner: 'sub-1', name: 'x.pdf', mimeType: 'application/pdf' });
      expect(ref.size).toBe(data.length);
      expect(ref.sha256).toBe(createHash('sha256').update(data).digest('hex'));
      const got = await store.get(ref.id, 'sub-1');
      expect(Buffer.from(got!.data).equals(data)).toBe(true);
      expect(got!.ref).toMatchObject({ owner: 'sub-1', name: 'x.pdf', mimeType: 'application/pdf', size: data.length });
    });

    it('stores a 20 MB file', async () => {
      const data = randomBytes(20 * 1024 * 1024);
      const ref = await store.put(data, { owner: 'sub-1', mimeType: 'video/mp4' });
      const got = await store.get(ref.id, 'sub-1');
      expect(got!.data.byteLength).toBe(data.length);
      expect(createHash('sha256').update(got!.data).digest('hex')).toBe(ref.sha256);
      expect(await store.delete(ref.id, 'sub-1')).toBe(true);
    }, 60_000);

    it('keeps files of one owner away from another', async () => {
      const ref = await store.put(Buffer.from('secret'), { owner: 'sub-A', mimeType: 'text/plain' });
      expect(await store.get(ref.id, 'sub-B')).toBeUndefined();
      expect(await store.delete(ref.id, 'sub-B')).toBe(false);
      expect(await store.delete(ref.id, 'sub-A')).toBe(true);
      expect(await store.get(ref.id, 'sub-A')).toBeUndefined();
    });

    it('stores an empty file', async () => {
      const ref = await store.put(new Uint8Array(0), { owner: 'sub-1', mimeType: 'text/plain' });
      expect((await store.get(ref.id, 'sub-1'))?.data.byteLength).toBe(0);
    });
  });
}
