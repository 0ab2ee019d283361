import { createHash } from 'node:crypto';
import { AppError } from '@a2a-inbound/errors';
import { randomIds, type BlobMeta, type BlobRef, type BlobStore, type IdGenerator } from '@a2a-inbound/ports';
import { key, str } from './keys';
import { LmdbDatabase } from './lmdb-database';

/** The blob store port on LMDB: file bytes and their reference, written in one transaction. */
export class LmdbBlobStore implements BlobStore {
  readonly #release: () => Promise<void>;
  readonly #ids: IdGenerator;
  #closed = false;

  constructor(
    private readonly db: LmdbDatabase,
    options: { ids?: IdGenerator } = {},
  ) {
    this.#release = db.acquire();
    this.#ids = options.ids ?? randomIds;
  }

  #refKey(id: string): Buffer {
    return key(str('blob'), str(id));
  }

  async put(data: Uint8Array, meta: BlobMeta): Promise<BlobRef> {
    this.#assertOpen();
    const ref: BlobRef = {
      ...meta,
      id: this.#ids.next(),
      size: data.byteLength,
      sha256: createHash('sha256').update(data).digest('hex'),
    };
    const bytes = Buffer.from(data);
    await this.db.write(() => {
      void this.db.blobs.put(str(ref.id), bytes);
      void this.db.meta.put(this.#refKey(ref.id), JSON.stringify(ref));
    });
    return { ...ref };
  }

  async get(id: string, owner: string): Promise<{ ref: BlobRef; data: Uint8Array } | undefined> {
    this.#assertOpen();
    await Promise.resolve();
    const raw = this.db.meta.get(this.#refKey(id));
    if (raw === undefined) return undefined;
    const ref = JSON.parse(raw) as BlobRef;
    if (ref.owner !== owner) return undefined;
    const data = this.db.blobs.get(str(id));
    if (data === undefined) return undefined;
    return { ref, data: Uint8Array.from(data) };
  }

  async delete(id: string, owner: string): Promise<boolean> {
    this.#assertOpen();
    return this.db.write(() => {
      const raw = this.db.meta.get(this.#refKey(id));
      if (raw === undefined || (JSON.parse(raw) as BlobRef).owner !== owner) return false;
      void this.db.blobs.remove(str(id));
      void this.db.meta.remove(this.#refKey(id));
      return true;
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#release();
  }

  #assertOpen(): void {
    if (this.#closed) throw new AppError('UNAVAILABLE', 'blob store is closed');
  }
}
