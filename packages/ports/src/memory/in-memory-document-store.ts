import { DuplicateKeyError, NotFoundError, VersionConflictError, AppError } from '@a2a-inbound/errors';
import type {
  Collection,
  CollectionSpec,
  DocumentStore,
  Filter,
  FindOptions,
  IndexSpec,
  Versioned,
  WriteOptions,
} from '../document-store';
import { EvictionOrder } from './eviction-order';
import { cloneJson, NOT_PLAIN, sealJson } from './json';

interface Row {
  id: string;
  version: number;
  /** Sealed (deeply frozen, handed out as it is) when `shared`; else a private copy, copied out on reads. */
  doc: Record<string, unknown>;
  shared: boolean;
  expiresAt?: number;
}

/** What the store keeps of a written document: a sealed value when it is plain JSON, else a private copy. */
function stored(doc: object): { doc: Record<string, unknown>; shared: boolean } {
  const s = sealJson(doc);
  return s === NOT_PLAIN
    ? { doc: cloneJson(doc) as Record<string, unknown>, shared: false }
    : { doc: s as Record<string, unknown>, shared: true };
}

function matches(doc: Record<string, unknown>, filter: Filter): boolean {
  for (const [field, value] of Object.entries(filter)) {
    const actual = doc[field];
    if ((actual === undefined ? null : actual) !== value) return false;
  }
  return true;
}

/** A read: the sealed document itself (read-only, no copy), or a copy of a document that is not plain JSON. */
function toVersioned<T>(row: Row): Versioned<T> {
  const out: { id: string; version: number; doc: T; expiresAt?: number } = {
    id: row.id,
    version: row.version,
    doc: (row.shared ? row.doc : cloneJson(row.doc)) as T,
  };
  if (row.expiresAt !== undefined) out.expiresAt = row.expiresAt;
  return out;
}

/**
 * What a write resolves: the sealed document the store keeps (read-only, shared with later reads, so a
 * document written back from it copies only what changed), or the caller's own document when it is not plain
 * JSON (the store keeps a private copy then).
 */
function written<T>(row: Row, doc: T): Versioned<T> {
  const out: { id: string; version: number; doc: T; expiresAt?: number } = {
    id: row.id,
    version: row.version,
    doc: row.shared ? (row.doc as T) : doc,
  };
  if (row.expiresAt !== undefined) out.expiresAt = row.expiresAt;
  return out;
}

const indexKey = (fields: readonly string[], doc: Readonly<Record<string, unknown>>): string =>
  JSON.stringify(fields.map((f) => (doc[f] === undefined ? null : doc[f])));

/** Equality index over some fields: key → ids. Unique indexes exempt documents missing every field. */
class FieldIndex {
  readonly #map = new Map<string, Set<string>>();
  constructor(readonly spec: IndexSpec) {}

  /** Whether two documents have the same key here (every indexed field the same value). */
  sameKey(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
    for (const f of this.spec.fields) {
      const av = a[f];
      const bv = b[f];
      // Keys are JSON of the values: equal primitives (undefined and null alike) give equal keys. Not in a unique
      // index, where a document missing every field has no key at all while one of nulls has `[null]`.
      if (av !== bv && (this.spec.unique || !(av == null && bv == null))) return false;
      if (typeof av === 'object' && av !== null) return false; // an object's key depends on its content
    }
    return true;
  }
  keyOf(doc: Readonly<Record<string, unknown>>): string | undefined {
    if (this.spec.unique && this.spec.fields.every((f) => doc[f] === undefined)) return undefined;
    return indexKey(this.spec.fields, doc);
  }
  add(id: string, doc: Readonly<Record<string, unknown>>): void {
    const key = this.keyOf(doc);
    if (key === undefined) return;
    let ids = this.#map.get(key);
    if (!ids) {
      ids = new Set();
      this.#map.set(key, ids);
    }
    ids.add(id);
  }
  remove(id: string, doc: Readonly<Record<string, unknown>>): void {
    const key = this.keyOf(doc);
    if (key === undefined) return;
    const ids = this.#map.get(key);
    ids?.delete(id);
    if (ids?.size === 0) this.#map.delete(key);
  }
  /** Ids of documents with this key, other than `exceptId`. */
  holders(key: string, exceptId?: string): string[] {
    return [...(this.#map.get(key) ?? [])].filter((id) => id !== exceptId);
  }
  /** Candidate ids for an equality filter covering every field of the index, else undefined. */
  candidates(filter: Filter): Set<string> | undefined {
    if (!this.spec.fields.every((f) => Object.prototype.hasOwnProperty.call(filter, f))) return undefined;
    return this.#map.get(indexKey(this.spec.fields, filter)) ?? new Set();
  }
}

class InMemoryCollection<T extends object> implements Collection<T> {
  readonly #rows = new Map<string, Row>();
  readonly #indexes: FieldIndex[];
  /**
   * Ids of the documents with an `expiresAt`, in the order it was last set: the oldest is the one whose retention
   * started longest ago, the first to go when the collection is at a bound (not a `Set`: eviction-order.ts).
   */
  readonly #expiring = new EvictionOrder();
  constructor(
    readonly name: string,
    indexes: readonly IndexSpec[],
    private readonly maxDocuments: number,
    private readonly maxRetained: number,
    private readonly assertOpen: () => void,
  ) {
    this.#indexes = indexes.map((i) => new FieldIndex(i));
  }

  /** Adds indexes named by a later open of the collection (like createIndexes), built from the rows. */
  ensureIndexes(specs: readonly IndexSpec[]): void {
    for (const spec of specs) {
      const same = this.#indexes.some(
        (i) => i.spec.fields.join('\u0000') === spec.fields.join('\u0000') && !!i.spec.unique === !!spec.unique,
      );
      if (same) continue;
      const index = new FieldIndex(spec);
      for (const row of this.#rows.values()) {
        if (spec.unique) {
          const key = index.keyOf(row.doc);
          if (key !== undefined && index.holders(key).length > 0)
            throw new DuplicateKeyError(this.name, `${spec.fields.join('+')}=${key}`);
        }
        index.add(row.id, row.doc);
      }
      this.#indexes.push(index);
    }
  }

  #checkUnique(doc: Record<string, unknown>, exceptId?: string, old?: Row): void {
    for (const index of this.#indexes) {
      if (!index.spec.unique) continue;
      if (old && index.sameKey(old.doc, doc)) continue; // its own key already: unique as it is
      const key = index.keyOf(doc);
      if (key !== undefined && index.holders(key, exceptId).length > 0) {
        throw new DuplicateKeyError(this.name, `${index.spec.fields.join('+')}=${key}`);
      }
    }
  }

  #put(row: Row): void {
    const old = this.#rows.get(row.id);
    this.#rows.set(row.id, row);
    if (row.expiresAt !== undefined) {
      // A retention (re)set now: to the end of the eviction order.
      if (old?.expiresAt !== row.expiresAt) this.#expiring.toEnd(row.id);
      // Past the bound of retained documents, the oldest retention ends early (never the one just written).
      while (this.#expiring.size > this.maxRetained && this.#evictOldest(row.id)) {
        // evicted one
      }
    } else if (old?.expiresAt !== undefined) this.#expiring.delete(row.id);
    for (const i of this.#indexes) {
      // Most writes (a task's next event, a charge) leave every indexed field as it was: no key to rebuild.
      if (old && i.sameKey(old.doc, row.doc)) continue;
      if (old) i.remove(old.id, old.doc);
      i.add(row.id, row.doc);
    }
  }

  #drop(id: string): boolean {
    const old = this.#rows.get(id);
    if (!old) return false;
    for (const i of this.#indexes) i.remove(id, old.doc);
    this.#rows.delete(id);
    this.#expiring.delete(id);
    return true;
  }

  /**
   * Drops the document whose retention was set longest ago (a finished task, an idempotency record: what
   * the retention sweep deletes anyway), as Redis's `volatile-*` eviction does; documents without an
   * `expiresAt` (a running task, an account) are never evicted. False when there is none (but `keep`).
   */
  #evictOldest(keep?: string): boolean {
    const id = this.#expiring.oldest((k) => k !== keep);
    return id !== undefined && this.#drop(id);
  }

  /** Rows that may match: from the most selective covering index, else every row. */
  #scan(filter: Filter): Iterable<Row> {
    let best: Set<string> | undefined;
    for (const i of this.#indexes) {
      const c = i.candidates(filter);
      if (c && (!best || c.size < best.size)) best = c;
    }
    if (!best) return this.#rows.values();
    const rows: Row[] = [];
    for (const id of best) {
      const r = this.#rows.get(id);
      if (r) rows.push(r);
    }
    return rows;
  }

  async insert(id: string, doc: T, options: WriteOptions = {}): Promise<Versioned<T>> {
    this.assertOpen();
    await Promise.resolve();
    if (this.#rows.has(id)) throw new DuplicateKeyError(this.name, id);
    const kept = stored(doc);
    this.#checkUnique(kept.doc);
    // Full: a document past its retention's start makes room; refused only when every one is kept for good.
    if (this.#rows.size >= this.maxDocuments && !this.#evictOldest()) {
      throw new AppError('UNAVAILABLE', `in-memory collection ${this.name} is full (${this.maxDocuments})`);
    }
    const row: Row = { id, version: 1, doc: kept.doc, shared: kept.shared };
    if (options.expiresAt !== undefined) row.expiresAt = options.expiresAt;
    this.#put(row);
    return written(row, doc);
  }

  async get(id: string): Promise<Versioned<T> | undefined> {
    this.assertOpen();
    await Promise.resolve();
    const row = this.#rows.get(id);
    return row && toVersioned<T>(row);
  }

  async findOne(filter: Filter): Promise<Versioned<T> | undefined> {
    const [first] = await this.find(filter, { limit: 1 });
    return first;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<Versioned<T>[]> {
    this.assertOpen();
    await Promise.resolve();
    let rows = [...this.#scan(filter)].filter((r) => matches(r.doc, filter));
    const sort = options.sort;
    rows.sort((a, b) => {
      if (sort) {
        const av = a.doc[sort.field] as string | number | undefined;
        const bv = b.doc[sort.field] as string | number | undefined;
        if (av !== bv) {
          if (av === undefined) return -sort.direction;
          if (bv === undefined) return sort.direction;
          return (av < bv ? -1 : 1) * sort.direction;
        }
      }
      return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    });
    if (options.skip) rows = rows.slice(options.skip);
    if (options.limit !== undefined) rows = rows.slice(0, options.limit);
    return rows.map((r) => toVersioned<T>(r));
  }

  async count(filter: Filter): Promise<number> {
    return (await this.find(filter)).length;
  }

  async replace(id: string, expectedVersion: number, doc: T, options: WriteOptions = {}): Promise<Versioned<T>> {
    this.assertOpen();
    await Promise.resolve();
    const current = this.#rows.get(id);
    if (!current) throw new NotFoundError(`${this.name}/${id}`);
    if (current.version !== expectedVersion) throw new VersionConflictError(this.name, id);
    const kept = stored(doc);
    this.#checkUnique(kept.doc, id, current);
    const row: Row = { id, version: current.version + 1, doc: kept.doc, shared: kept.shared };
    const expiresAt = options.expiresAt ?? current.expiresAt;
    if (expiresAt !== undefined) row.expiresAt = expiresAt;
    this.#put(row);
    return written(row, doc);
  }

  async delete(id: string, expectedVersion?: number): Promise<boolean> {
    this.assertOpen();
    await Promise.resolve();
    const current = this.#rows.get(id);
    if (!current) return false;
    if (expectedVersion !== undefined && current.version !== expectedVersion) return false;
    return this.#drop(id);
  }

  async sweepExpired(now: number): Promise<number> {
    this.assertOpen();
    await Promise.resolve();
    let n = 0;
    // Only the documents with an expiry (they may be deleted while they are iterated).
    for (const id of this.#expiring.keys()) {
      const expiresAt = this.#rows.get(id)?.expiresAt;
      if (expiresAt !== undefined && expiresAt <= now) {
        this.#drop(id);
        n += 1;
      }
    }
    return n;
  }
}

export interface InMemoryDocumentStoreOptions {
  /**
   * Per collection. An insert into a full collection evicts the document whose retention (`expiresAt`) was set
   * longest ago; only when no document has one does it fail with UNAVAILABLE rather than grow without bound.
   */
  readonly maxDocumentsPerCollection?: number;
  /**
   * Per collection: documents with an `expiresAt` (finished tasks, idempotency records, ledger records) kept at
   * most; one more evicts the one whose retention was set longest ago, before its time. What a process that
   * holds everything in its heap can afford is far less than a database's retention window (the heap's garbage
   * collection slows every request as it grows). Default: `maxDocumentsPerCollection`.
   */
  readonly maxRetainedPerCollection?: number;
  /**
   * Collections the retained bound leaves alone (only the collection bound applies): those whose documents get
   * their retention when they are written, while the task they serve may still run (push configs, the tasks'
   * lists of them, context lists), so that the oldest retention is not finished work.
   */
  readonly retainedBoundExempt?: readonly string[];
}

export class InMemoryDocumentStore implements DocumentStore {
  readonly #collections = new Map<string, InMemoryCollection<object>>();
  readonly #max: number;
  readonly #maxRetained: number;
  readonly #exempt: ReadonlySet<string>;
  #closed = false;

  constructor(options: InMemoryDocumentStoreOptions = {}) {
    this.#max = options.maxDocumentsPerCollection ?? 200_000;
    this.#maxRetained = Math.min(this.#max, options.maxRetainedPerCollection ?? this.#max);
    this.#exempt = new Set(options.retainedBoundExempt ?? []);
  }

  async collection<T extends object>(spec: CollectionSpec): Promise<Collection<T>> {
    this.#assertOpen();
    await Promise.resolve();
    let c = this.#collections.get(spec.name);
    if (!c) {
      const retained = this.#exempt.has(spec.name) ? this.#max : this.#maxRetained;
      c = new InMemoryCollection<object>(spec.name, spec.indexes ?? [], this.#max, retained, () => this.#assertOpen());
      this.#collections.set(spec.name, c);
    } else {
      c.ensureIndexes(spec.indexes ?? []);
    }
    return c as unknown as Collection<T>;
  }

  async ping(): Promise<void> {
    this.#assertOpen();
    await Promise.resolve();
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.resolve();
  }

  #assertOpen(): void {
    if (this.#closed) throw new AppError('UNAVAILABLE', 'document store is closed');
  }
}
