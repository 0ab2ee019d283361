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
import { cloneJson } from './json';

interface Row {
  id: string;
  version: number;
  doc: Record<string, unknown>;
  expiresAt?: number;
}

function matches(doc: Record<string, unknown>, filter: Filter): boolean {
  for (const [field, value] of Object.entries(filter)) {
    const actual = doc[field];
    if ((actual === undefined ? null : actual) !== value) return false;
  }
  return true;
}

function uniqueKey(index: IndexSpec, doc: Record<string, unknown>): string | undefined {
  const parts = index.fields.map((f) => doc[f]);
  // Like MongoDB, a missing field is null and still unique; we skip documents missing every field.
  if (parts.every((p) => p === undefined)) return undefined;
  return JSON.stringify(parts.map((p) => (p === undefined ? null : p)));
}

function toVersioned<T>(row: Row): Versioned<T> {
  const out: { id: string; version: number; doc: T; expiresAt?: number } = {
    id: row.id,
    version: row.version,
    doc: cloneJson(row.doc) as T,
  };
  if (row.expiresAt !== undefined) out.expiresAt = row.expiresAt;
  return out;
}

class InMemoryCollection<T extends object> implements Collection<T> {
  readonly #rows = new Map<string, Row>();
  constructor(
    readonly name: string,
    private readonly indexes: readonly IndexSpec[],
    private readonly maxDocuments: number,
    private readonly assertOpen: () => void,
  ) {}

  #checkUnique(doc: Record<string, unknown>, exceptId?: string): void {
    for (const index of this.indexes) {
      if (!index.unique) continue;
      const key = uniqueKey(index, doc);
      if (key === undefined) continue;
      for (const row of this.#rows.values()) {
        if (row.id !== exceptId && uniqueKey(index, row.doc) === key) {
          throw new DuplicateKeyError(this.name, `${index.fields.join('+')}=${key}`);
        }
      }
    }
  }

  async insert(id: string, doc: T, options: WriteOptions = {}): Promise<Versioned<T>> {
    this.assertOpen();
    await Promise.resolve();
    if (this.#rows.has(id)) throw new DuplicateKeyError(this.name, id);
    if (this.#rows.size >= this.maxDocuments) {
      throw new AppError('UNAVAILABLE', `in-memory collection ${this.name} is full (${this.maxDocuments})`);
    }
    const copy = cloneJson(doc) as Record<string, unknown>;
    this.#checkUnique(copy);
    const row: Row = { id, version: 1, doc: copy };
    if (options.expiresAt !== undefined) row.expiresAt = options.expiresAt;
    this.#rows.set(id, row);
    return toVersioned<T>(row);
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
    let rows = [...this.#rows.values()].filter((r) => matches(r.doc, filter));
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
    const copy = cloneJson(doc) as Record<string, unknown>;
    this.#checkUnique(copy, id);
    const row: Row = { id, version: current.version + 1, doc: copy };
    const expiresAt = options.expiresAt ?? current.expiresAt;
    if (expiresAt !== undefined) row.expiresAt = expiresAt;
    this.#rows.set(id, row);
    return toVersioned<T>(row);
  }

  async delete(id: string, expectedVersion?: number): Promise<boolean> {
    this.assertOpen();
    await Promise.resolve();
    const current = this.#rows.get(id);
    if (!current) return false;
    if (expectedVersion !== undefined && current.version !== expectedVersion) return false;
    this.#rows.delete(id);
    return true;
  }

  async sweepExpired(now: number): Promise<number> {
    this.assertOpen();
    await Promise.resolve();
    let n = 0;
    for (const [id, row] of this.#rows) {
      if (row.expiresAt !== undefined && row.expiresAt <= now) {
        this.#rows.delete(id);
        n += 1;
      }
    }
    return n;
  }
}

export interface InMemoryDocumentStoreOptions {
  /** Per collection; inserts beyond it fail with UNAVAILABLE rather than growing without bound. */
  readonly maxDocumentsPerCollection?: number;
}

export class InMemoryDocumentStore implements DocumentStore {
  readonly #collections = new Map<string, InMemoryCollection<object>>();
  readonly #max: number;
  #closed = false;

  constructor(options: InMemoryDocumentStoreOptions = {}) {
    this.#max = options.maxDocumentsPerCollection ?? 200_000;
  }

  async collection<T extends object>(spec: CollectionSpec): Promise<Collection<T>> {
    this.#assertOpen();
    await Promise.resolve();
    let c = this.#collections.get(spec.name);
    if (!c) {
      c = new InMemoryCollection<object>(spec.name, spec.indexes ?? [], this.#max, () => this.#assertOpen());
      this.#collections.set(spec.name, c);
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
