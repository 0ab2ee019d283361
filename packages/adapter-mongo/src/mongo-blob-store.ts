import { createHash } from 'node:crypto';
import { AppError } from '@a2a-inbound/errors';
import type { BlobMeta, BlobRef, BlobStore } from '@a2a-inbound/ports';
import { GridFSBucket, MongoRuntimeError, ObjectId } from 'mongodb';
import type { Collection, Db, GridFSFile, MongoClient } from 'mongodb';
import type { AdapterLog, MongoConnectOptions } from './mongo-common';
import type { ClientWatchdog } from './client-watchdog';
import { openMongo, silentLog, toAppErrorFromMongo } from './mongo-common';

export interface MongoBlobStoreOptions extends MongoConnectOptions {
  /** GridFS bucket: collections `<bucket>.files` and `<bucket>.chunks`. */
  readonly bucketName?: string;
  /** A put beyond this fails with PAYLOAD_TOO_LARGE (A2A file parts are at most 20 MB decoded). */
  readonly maxBlobBytes?: number;
  readonly chunkSizeBytes?: number;
}

interface FileMetadata {
  owner: string;
  name?: string;
  mimeType: string;
  sha256: string;
}

function toRef(file: GridFSFile): BlobRef {
  const meta = file.metadata as FileMetadata;
  const ref: { -readonly [K in keyof BlobRef]: BlobRef[K] } = {
    id: file._id.toHexString(),
    owner: meta.owner,
    mimeType: meta.mimeType,
    size: file.length,
    sha256: meta.sha256,
  };
  if (meta.name !== undefined) ref.name = meta.name;
  return ref;
}

function parseId(id: string): ObjectId | undefined {
  return /^[0-9a-f]{24}$/i.test(id) ? new ObjectId(id) : undefined;
}

/**
 * Blob store port on GridFS. Each blob is one GridFS file with an ObjectId (its id on the port) and
 * metadata {owner, name, mimeType, sha256}; reads and deletes check the owner. GridFS writes the files
 * document after the last chunk, so a crashed upload is never visible (its orphan chunks are removed
 * by `abort()` when the driver can, otherwise they stay unreferenced).
 */
export class MongoBlobStore implements BlobStore {
  readonly #client: MongoClient;
  readonly #bucket: GridFSBucket;
  readonly #files: Collection<GridFSFile>;
  readonly #maxBytes: number;
  readonly #log: AdapterLog;
  #closing: Promise<void> | undefined;
  #watchdog: ClientWatchdog | undefined;

  private constructor(client: MongoClient, options: MongoBlobStoreOptions) {
    const db: Db = client.db(options.dbName);
    const bucketName = options.bucketName ?? 'files';
    this.#client = client;
    this.#bucket = new GridFSBucket(db, { bucketName, chunkSizeBytes: options.chunkSizeBytes ?? 255 * 1024 });
    this.#files = db.collection<GridFSFile>(`${bucketName}.files`);
    this.#maxBytes = options.maxBlobBytes ?? 32 * 1024 * 1024;
    this.#log = options.log ?? silentLog;
  }

  static async connect(options: MongoBlobStoreOptions): Promise<MongoBlobStore> {
    const { client, watchdog } = await openMongo(options, 'a2a-blob-store');
    const store = new MongoBlobStore(client, options);
    store.#watchdog = watchdog;
    return store;
  }

  async put(data: Uint8Array, meta: BlobMeta): Promise<BlobRef> {
    this.#assertOpen();
    if (data.byteLength > this.#maxBytes) {
      throw new AppError('PAYLOAD_TOO_LARGE', `file of ${data.byteLength} bytes exceeds ${this.#maxBytes}`);
    }
    const sha256 = createHash('sha256').update(data).digest('hex');
    const id = new ObjectId();
    const metadata: FileMetadata = { owner: meta.owner, mimeType: meta.mimeType, sha256 };
    if (meta.name !== undefined) metadata.name = meta.name;
    const upload = this.#bucket.openUploadStreamWithId(id, meta.name ?? id.toHexString(), { metadata });
    try {
      await new Promise<void>((resolve, reject) => {
        upload.once('finish', resolve);
        upload.once('error', reject);
        upload.end(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
      });
    } catch (err) {
      await upload.abort().catch(() => undefined);
      throw toAppErrorFromMongo(err, 'blob store');
    }
    const ref: { -readonly [K in keyof BlobRef]: BlobRef[K] } = {
      id: id.toHexString(),
      ...meta,
      size: data.byteLength,
      sha256,
    };
    return ref;
  }

  async get(id: string, owner: string): Promise<{ ref: BlobRef; data: Uint8Array } | undefined> {
    const file = await this.#find(id, owner);
    if (!file) return undefined;
    const out = new Uint8Array(file.length);
    let offset = 0;
    try {
      for await (const chunk of this.#bucket.openDownloadStream(file._id)) {
        const bytes = chunk as Buffer;
        if (offset + bytes.byteLength > out.byteLength)
          throw new AppError('INTERNAL', `blob ${id} is longer than recorded`);
        out.set(bytes, offset);
        offset += bytes.byteLength;
      }
    } catch (err) {
      // Deleted between the lookup and the read: absent, like a get after the delete.
      if (err instanceof MongoRuntimeError && /FileNotFound|ChunkIsMissing/i.test(err.message)) return undefined;
      throw toAppErrorFromMongo(err, 'blob store');
    }
    if (offset !== out.byteLength) throw new AppError('INTERNAL', `blob ${id} is shorter than recorded`);
    return { ref: toRef(file), data: out };
  }

  async delete(id: string, owner: string): Promise<boolean> {
    const file = await this.#find(id, owner);
    if (!file) return false;
    try {
      await this.#bucket.delete(file._id);
      return true;
    } catch (err) {
      if (err instanceof MongoRuntimeError && /not found/i.test(err.message)) return false; // lost a race with another delete
      throw toAppErrorFromMongo(err, 'blob store');
    }
  }

  async #find(id: string, owner: string): Promise<GridFSFile | undefined> {
    this.#assertOpen();
    const oid = parseId(id);
    if (!oid) return undefined;
    try {
      return (await this.#files.findOne({ _id: oid, 'metadata.owner': owner })) ?? undefined;
    } catch (err) {
      throw toAppErrorFromMongo(err, 'blob store');
    }
  }

  close(): Promise<void> {
    this.#watchdog?.stop();
    this.#closing ??= this.#client.close().catch((err: unknown) => {
      this.#log.warn({ err }, 'error while closing the MongoDB client');
    });
    return this.#closing;
  }

  #assertOpen(): void {
    if (this.#closing) throw new AppError('UNAVAILABLE', 'blob store is closed');
  }
}
