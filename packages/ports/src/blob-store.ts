/**
 * Blob store port: immutable files (A2A file parts up to 20 MB decoded), stored against an owner
 * (the subscription). Reads return copies. Adapters: in-memory (bounded by total bytes), MongoDB GridFS.
 */
export interface BlobMeta {
  readonly owner: string;
  readonly name?: string;
  readonly mimeType: string;
}

export interface BlobRef extends BlobMeta {
  readonly id: string;
  readonly size: number;
  /** Hex SHA-256 of the content. */
  readonly sha256: string;
}

export interface BlobStore {
  put(data: Uint8Array, meta: BlobMeta): Promise<BlobRef>;
  /** Undefined when absent or owned by someone else. */
  get(id: string, owner: string): Promise<{ ref: BlobRef; data: Uint8Array } | undefined>;
  delete(id: string, owner: string): Promise<boolean>;
  close(): Promise<void>;
}
