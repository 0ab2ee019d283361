/**
 * Document store port: named collections of JSON documents, each with a string id and a version.
 *
 * Semantics every adapter keeps (the contract suite checks them):
 * - Documents are plain JSON values (no Dates, no undefined inside arrays). Keys may contain `.` and
 *   start with `$` (user-supplied A2A `metadata`): adapters store them losslessly.
 * - A returned document (a read's or a write's) never changes with the store, and changing it never changes the
 *   store. It may be read-only: the in-memory adapter hands out deeply frozen documents shared with its own
 *   (no copy per read), so a caller copies what it changes (`{ ...read.doc, n: 2 }`), never assigns into it.
 * - `insert` fails with DuplicateKeyError when the id or a unique index's key already exists.
 * - `replace` is compare-and-set on `version`: VersionConflictError when stale, NotFoundError when absent.
 *   A successful write increments the version by one. The first version is 1.
 * - Filters are equality on top-level fields (the fields named in indexes), combined with AND.
 * - `expiresAt` (ms epoch) marks a document for retention; `sweepExpired(now)` deletes the expired ones
 *   (no TTL indexes: FerretDB v1 has none). Reads do not hide expired documents before the sweep.
 */

export type JsonPrimitive = string | number | boolean | null;
export type Filter = Readonly<Record<string, JsonPrimitive>>;

export interface IndexSpec {
  /** Top-level field names; compound when several. */
  readonly fields: readonly string[];
  readonly unique?: boolean;
}

export interface CollectionSpec {
  readonly name: string;
  readonly indexes?: readonly IndexSpec[];
}

export interface Versioned<T> {
  readonly id: string;
  readonly version: number;
  readonly doc: T;
  readonly expiresAt?: number;
}

export interface WriteOptions {
  /** Retention: the document may be deleted by a sweep after this time (ms epoch). */
  readonly expiresAt?: number;
}

export interface FindOptions {
  readonly limit?: number;
  readonly skip?: number;
  /** Sort by one top-level field; ties broken by id. Default: by id ascending. */
  readonly sort?: { readonly field: string; readonly direction: 1 | -1 };
}

export interface Collection<T extends object> {
  readonly name: string;
  insert(id: string, doc: T, options?: WriteOptions): Promise<Versioned<T>>;
  get(id: string): Promise<Versioned<T> | undefined>;
  findOne(filter: Filter): Promise<Versioned<T> | undefined>;
  find(filter: Filter, options?: FindOptions): Promise<Versioned<T>[]>;
  count(filter: Filter): Promise<number>;
  replace(id: string, expectedVersion: number, doc: T, options?: WriteOptions): Promise<Versioned<T>>;
  /** Deletes when present (and, if given, at `expectedVersion`); resolves whether a document was deleted. */
  delete(id: string, expectedVersion?: number): Promise<boolean>;
  /** Deletes documents whose `expiresAt` is at or before `now`; resolves how many. */
  sweepExpired(now: number): Promise<number>;
}

export interface DocumentStore {
  /** Opens (and on first use creates, with its indexes) a collection. Idempotent. */
  collection<T extends object>(spec: CollectionSpec): Promise<Collection<T>>;
  /** Resolves when the engine answers (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
