import { AppError, DuplicateKeyError, NotFoundError, VersionConflictError } from '@a2a-inbound/errors';
import type {
  Collection,
  CollectionSpec,
  DocumentStore,
  Filter,
  FindOptions,
  IndexSpec,
  Versioned,
  WriteOptions,
} from '@a2a-inbound/ports';
import { key, num, rangeEnd, str, strs, valueElement } from './keys';
import { LmdbDatabase, type LmdbOpenOptions } from './lmdb-database';

/** What a row holds on disk: the version, the retention time and the document. */
interface Row {
  v: number;
  e?: number;
  d: Record<string, unknown>;
}

/** A stored row's version and retention time, read from the start of its JSON (`{"v":N,("e":N,)?"i":`). */
interface Head {
  v: number;
  e?: number;
}
const HEAD = /^\{"v":(\d+),(?:"e":(-?[\d.e+]+),)?"i":/;

const indexName = (spec: IndexSpec): string => `${spec.unique ? 'u' : 'i'}:${spec.fields.join(',')}`;

function matches(doc: Record<string, unknown>, filter: Filter): boolean {
  for (const [field, value] of Object.entries(filter)) {
    const actual = doc[field];
    if ((actual === undefined ? null : actual) !== value) return false;
  }
  return true;
}

function versioned<T>(id: string, row: Row, doc: T): Versioned<T> {
  const out: { id: string; version: number; doc: T; expiresAt?: number } = { id, version: row.v, doc };
  if (row.e !== undefined) out.expiresAt = row.e;
  return out;
}

/** The outcome of a write transaction: never a throw inside it (that would abort the whole batched commit). */
type Outcome =
  | { ok: true; row: Row }
  | { ok: false; error: 'duplicate'; detail: string }
  | { ok: false; error: 'missing' | 'stale' };

class LmdbCollection<T extends object> implements Collection<T> {
  readonly #prefix: Buffer;
  #indexes: IndexSpec[];

  constructor(
    readonly name: string,
    indexes: readonly IndexSpec[],
    private readonly db: LmdbDatabase,
    private readonly assertOpen: () => void,
  ) {
    this.#prefix = str(name);
    this.#indexes = [...indexes];
  }

  #docKey(id: string): Buffer {
    return strs(this.name, id);
  }

  /** The index entry's prefix (without the id); undefined when a unique index exempts the document. */
  #entryPrefix(spec: IndexSpec, doc: Readonly<Record<string, unknown>>): Buffer | undefined {
    if (spec.unique && spec.fields.every((f) => doc[f] === undefined)) return undefined;
    return key(this.#prefix, str(indexName(spec)), ...spec.fields.map((f) => valueElement(doc[f])));
  }

  #expiryKey(id: string, expiresAt: number): Buffer {
    return key(this.#prefix, num(expiresAt), str(id));
  }

  /** Inside a write transaction: a unique key of `doc` held by another document. */
  #uniqueClash(doc: Record<string, unknown>, id: string): string | undefined {
    for (const spec of this.#indexes) {
      if (!spec.unique) continue;
      const prefix = this.#entryPrefix(spec, doc);
      if (!prefix) continue;
      for (const entry of this.db.index.getRange({ start: prefix, end: rangeEnd(prefix) })) {
        if (entry.value !== id)
          return `${spec.fields.join('+')}=${JSON.stringify(spec.fields.map((f) => doc[f] ?? null))}`;
      }
    }
    return undefined;
  }

  /** Inside a write transaction: removes a row's index and expiry entries (`d` is there when indexes are). */
  #unindex(id: string, row: Row | Head): void {
    for (const spec of this.#indexes) {
      const prefix = this.#entryPrefix(spec, (row as Row).d);
      if (prefix) void this.db.index.remove(key(prefix, str(id)));
    }
    if (row.e !== undefined) void this.db.expiry.remove(this.#expiryKey(id, row.e));
  }

  /**
   * Inside a write transaction: writes a row (its document already JSON) with its index and expiry entries.
   * With `previous` (a replace), only the entries that changed are removed and added: a task's three index
   * entries and its expiry entry mostly stay as they were across its updates, and each entry written is a
   * B-tree put and a dirty page in the commit.
   */
  #write(id: string, row: Row, json: string, previous?: Row | Head): void {
    const e = row.e === undefined ? '' : `"e":${row.e},`;
    void this.db.docs.put(this.#docKey(id), `{"v":${row.v},${e}"i":${JSON.stringify(id)},"d":${json}}`);
    for (const spec of this.#indexes) {
      const prefix = this.#entryPrefix(spec, row.d);
      if (previous) {
        const old = this.#entryPrefix(spec, (previous as Row).d);
        if (old && prefix?.equals(old)) continue;
        if (old) void this.db.index.remove(key(old, str(id)));
      }
      if (prefix) void this.db.index.put(key(prefix, str(id)), id);
    }
    if (previous?.e !== undefined && previous.e !== row.e) void this.db.expiry.remove(this.#expiryKey(id, previous.e));
    if (row.e !== undefined && row.e !== previous?.e) void this.db.expiry.put(this.#expiryKey(id, row.e), id);
  }

  #read(id: string): Row | undefined {
    const raw = this.db.docs.get(this.#docKey(id));
    return raw === undefined ? undefined : (JSON.parse(raw) as Row);
  }

  /**
   * What a compare-and-set or a delete needs of the stored row: its version and retention time, and its document
   * only when the collection has indexes to update. Without indexes the document is not parsed (a credit
   * bucket, rewritten on every send, carries its ring of 128 debit notes): `#write` puts `v` and `e` first.
   */
  #readForWrite(id: string): Row | Head | undefined {
    if (this.#indexes.length > 0) return this.#read(id);
    const raw = this.db.docs.get(this.#docKey(id));
    if (raw === undefined) return undefined;
    const m = HEAD.exec(raw);
    if (!m) return JSON.parse(raw) as Row;
    return m[2] === undefined ? { v: Number(m[1]) } : { v: Number(m[1]), e: Number(m[2]) };
  }

  /** Builds the indexes a later open of the collection names (like createIndexes), once. */
  ensureIndexes(specs: readonly IndexSpec[]): void {
    const builtKey = key(str('built-indexes'), this.#prefix);
    const built = new Set<string>(JSON.parse(this.db.meta.get(builtKey) ?? '[]') as string[]);
    for (const spec of specs)
      if (!this.#indexes.some((i) => indexName(i) === indexName(spec))) this.#indexes.push(spec);
    const missing = this.#indexes.filter((s) => !built.has(indexName(s)));
    if (missing.length === 0) return;
    const clash = this.db.root.transactionSync(() => {
      for (const spec of missing) {
        const seen = new Set<string>();
        for (const { id, row } of this.#rows()) {
          const prefix = this.#entryPrefix(spec, row.d);
          if (!prefix) continue;
          if (spec.unique) {
            const k = prefix.toString('latin1');
            if (seen.has(k)) return `${spec.fields.join('+')}`;
            seen.add(k);
          }
          void this.db.index.put(key(prefix, str(id)), id);
        }
        built.add(indexName(spec));
      }
      void this.db.meta.put(builtKey, JSON.stringify([...built]));
      return undefined;
    });
    if (clash) throw new DuplicateKeyError(this.name, clash);
  }

  *#rows(): Iterable<{ id: string; row: Row }> {
    for (const { value } of this.db.docs.getRange({ start: this.#prefix, end: rangeEnd(this.#prefix) })) {
      const row = JSON.parse(value) as Row & { i: string };
      yield { id: row.i, row };
    }
  }

  /** Candidate rows: from the most selective covering index, else every row of the collection. */
  *#scan(filter: Filter): Iterable<{ id: string; row: Row }> {
    let best: string[] | undefined;
    for (const spec of this.#indexes) {
      if (!spec.fields.every((f) => Object.prototype.hasOwnProperty.call(filter, f))) continue;
      const prefix = key(this.#prefix, str(indexName(spec)), ...spec.fields.map((f) => valueElement(filter[f])));
      const ids = [...this.db.index.getRange({ start: prefix, end: rangeEnd(prefix) }).map((e) => e.value)];
      if (!best || ids.length < best.length) best = ids;
    }
    if (!best) {
      yield* this.#rows();
      return;
    }
    for (const id of best) {
      const row = this.#read(id);
      if (row) yield { id, row };
    }
  }

  async #transact(id: string, fn: () => Outcome): Promise<Row> {
    this.assertOpen();
    const outcome = await this.db.write(fn);
    if (outcome.ok) return outcome.row;
    if (outcome.error === 'duplicate') throw new DuplicateKeyError(this.name, outcome.detail);
    if (outcome.error === 'missing') throw new NotFoundError(`${this.name}/${id}`);
    throw new VersionConflictError(this.name, id);
  }

  async insert(id: string, doc: T, options: WriteOptions = {}): Promise<Versioned<T>> {
    const d = doc as Record<string, unknown>;
    const json = JSON.stringify(d);
    const row = await this.#transact(id, () => {
      if (this.db.docs.doesExist(this.#docKey(id))) return { ok: false, error: 'duplicate', detail: id };
      const clash = this.#uniqueClash(d, id);
      if (clash) return { ok: false, error: 'duplicate', detail: clash };
      const r: Row = { v: 1, d };
      if (options.expiresAt !== undefined) r.e = options.expiresAt;
      this.#write(id, r, json);
      return { ok: true, row: r };
    });
    return versioned(id, row, doc);
  }

  async get(id: string): Promise<Versioned<T> | undefined> {
    this.assertOpen();
    await Promise.resolve();
    const row = this.#read(id);
    return row && versioned(id, row, row.d as T);
  }

  async findOne(filter: Filter): Promise<Versioned<T> | undefined> {
    const [first] = await this.find(filter, { limit: 1 });
    return first;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<Versioned<T>[]> {
    this.assertOpen();
    await Promise.resolve();
    let rows: { id: string; row: Row }[] = [];
    for (const r of this.#scan(filter)) if (matches(r.row.d, filter)) rows.push(r);
    const sort = options.sort;
    rows.sort((a, b) => {
      if (sort) {
        const av = a.row.d[sort.field] as string | number | undefined;
        const bv = b.row.d[sort.field] as string | number | undefined;
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
    return rows.map((r) => versioned(r.id, r.row, r.row.d as T));
  }

  async count(filter: Filter): Promise<number> {
    this.assertOpen();
    await Promise.resolve();
    let n = 0;
    for (const r of this.#scan(filter)) if (matches(r.row.d, filter)) n += 1;
    return n;
  }

  async replace(id: string, expectedVersion: number, doc: T, options: WriteOptions = {}): Promise<Versioned<T>> {
    const d = doc as Record<string, unknown>;
    const json = JSON.stringify(d);
    const row = await this.#transact(id, () => {
      const current = this.#readForWrite(id);
      if (!current) return { ok: false, error: 'missing' };
      if (current.v !== expectedVersion) return { ok: false, error: 'stale' };
      const clash = this.#uniqueClash(d, id);
      if (clash) return { ok: false, error: 'duplicate', detail: clash };
      const r: Row = { v: current.v + 1, d };
      const expiresAt = options.expiresAt ?? current.e;
      if (expiresAt !== undefined) r.e = expiresAt;
      this.#write(id, r, json, current);
      return { ok: true, row: r };
    });
    return versioned(id, row, doc);
  }

  async delete(id: string, expectedVersion?: number): Promise<boolean> {
    this.assertOpen();
    return this.db.write(() => {
      const current = this.#readForWrite(id);
      if (!current) return false;
      if (expectedVersion !== undefined && current.v !== expectedVersion) return false;
      this.#unindex(id, current);
      void this.db.docs.remove(this.#docKey(id));
      return true;
    });
  }

  async sweepExpired(now: number): Promise<number> {
    this.assertOpen();
    const start = key(this.#prefix, num(0));
    const end = key(this.#prefix, num(now + 1));
    // Bounded batches: one sweep never holds the write lock for long.
    let total = 0;
    for (;;) {
      const ids = [...this.db.expiry.getRange({ start, end, limit: 500 }).map((e) => e.value)];
      if (ids.length === 0) return total;
      total += await this.db.write(() => {
        let n = 0;
        for (const id of ids) {
          const current = this.#read(id);
          if (!current || current.e === undefined || current.e > now) continue;
          this.#unindex(id, current);
          void this.db.docs.remove(this.#docKey(id));
          n += 1;
        }
        return n;
      });
      if (ids.length < 500) return total;
    }
  }
}

/** The document store port on LMDB (the durable embedded mode). */
export class LmdbDocumentStore implements DocumentStore {
  readonly #collections = new Map<string, LmdbCollection<object>>();
  readonly #release: () => Promise<void>;
  #closed = false;

  constructor(private readonly db: LmdbDatabase) {
    this.#release = db.acquire();
  }

  /** A store on its own environment in `dir` (closing the store closes it). */
  static open(dir: string, options: LmdbOpenOptions = {}): LmdbDocumentStore {
    return new LmdbDocumentStore(LmdbDatabase.open(dir, options));
  }

  async collection<T extends object>(spec: CollectionSpec): Promise<Collection<T>> {
    this.#assertOpen();
    await Promise.resolve();
    let c = this.#collections.get(spec.name);
    if (!c) {
      c = new LmdbCollection<object>(spec.name, [], this.db, () => this.#assertOpen());
      this.#collections.set(spec.name, c);
    }
    c.ensureIndexes(spec.indexes ?? []);
    return c as unknown as Collection<T>;
  }

  async ping(): Promise<void> {
    this.#assertOpen();
    await Promise.resolve();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#release();
  }

  #assertOpen(): void {
    if (this.#closed) throw new AppError('UNAVAILABLE', 'document store is closed');
  }
}
