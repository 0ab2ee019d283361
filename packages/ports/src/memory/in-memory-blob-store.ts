import { createHash } from 'node:crypto';
import { AppError } from '@a2a-inbound/errors';
import type { BlobMeta, BlobRef, BlobStore } from '../blob-store';
import type { IdGenerator } from '../clock';
import { randomIds } from '../clock';

export interface InMemoryBlobStoreOptions {
  /** Total bytes held; a put beyond it fails with UNAVAILABLE. */
  readonly maxTotalBytes?: number;
  readonly ids?: IdGenerator;
}

export class InMemoryBlobStore implements BlobStore {
  readonly #blobs = new Map<string, { ref: BlobRef; data: Uint8Array }>();
  readonly #maxTotalBytes: number;
  readonly #ids: IdGenerator;
  #total = 0;
  #closed = false;

  constructor(options: InMemoryBlobStoreOptions = {}) {
    this.#maxTotalBytes = options.maxTotalBytes ?? 512 * 1024 * 1024;
    this.#ids = options.ids ?? randomIds;
  }

  async put(data: Uint8Array, meta: BlobMeta): Promise<BlobRef> {
    this.#assertOpen();
    await Promise.resolve();
    if (this.#total + data.byteLength > this.#maxTotalBytes) {
      throw new AppError('UNAVAILABLE', 'in-memory blob store is full');
    }
    const ref: BlobRef = {
      ...meta,
      id: this.#ids.next(),
      size: data.byteLength,
      sha256: createHash('sha256').update(data).digest('hex'),
    };
    this.#blobs.set(ref.id, { ref, data: data.slice() });
    this.#total += data.byteLength;
    return { ...ref };
  }

  async get(id: string, owner: string): Promise<{ ref: BlobRef; data: Uint8Array } | undefined> {
    this.#assertOpen();
    await Promise.resolve();
    const blob = this.#blobs.get(id);
    if (!blob || blob.ref.owner !== owner) return undefined;
    return { ref: { ...blob.ref }, data: blob.data.slice() };
  }

  async delete(id: string, owner: string): Promise<boolean> {
    this.#assertOpen();
    await Promise.resolve();
    const blob = this.#blobs.get(id);
    if (!blob || blob.ref.owner !== owner) return false;
    this.#blobs.delete(id);
    this.#total -= blob.ref.size;
    return true;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.resolve();
  }

  #assertOpen(): void {
    if (this.#closed) throw new AppError('UNAVAILABLE', 'blob store is closed');
  }
}
