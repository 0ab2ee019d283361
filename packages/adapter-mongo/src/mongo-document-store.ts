import { randomBytes, randomUUID } from 'node:crypto';
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
import type {
  Collection as DriverCollection,
  Db,
  Document,
  IndexDescription,
  MongoClient,
  OptionalUnlessRequiredId,
  Sort,
} from 'mongodb';
import { MongoServerError } from 'mongodb';
import { decodeDoc, decodeKey, encodeDoc, encodeKey } from './key-codec';
import type { AdapterLog, MongoConnectOptions } from './mongo-common';
import type { ClientWatchdog } from './client-watchdog';
import { isDuplicateKey, openMongo, silentLog, toAppErrorFromMongo } from './mongo-common';
import { InsertBatcher } from './insert-batcher';

/**
 * How `replace` and versioned `delete` are made compare-and-set:
 * - `native`: one conditional `findOneAndUpdate({_id, v})` — atomic per document on MongoDB.
 * - `claim`: first insert a claim `{k: [collection, id, incarnation, version + 1]}` into a collection with a
 *   unique index on `k` (an insert against a unique index is atomic even on FerretDB v1), then the write
 *   filtered on `{_id, v, i}`. Needed on FerretDB v1, whose conditional updates are a read followed by a
 *   write and let two racing writers both win (measured: 17 of 30 races on SQLite; 139 of 200 four-way races
 *   on PostgreSQL, 2026-11-27). Claims are kept, not released: a version is claimed once per incarnation of a
 *   document (`i`, drawn at insert, so a deleted and re-inserted id claims afresh), and old claims are swept
 *   in bulk (ADR 0037). Two operations per write when this process knows the document's incarnation (it read
 *   or wrote it), three otherwise.
 * - `auto` (default): `claim` on FerretDB, `native` elsewhere.
 */
export type CasMode = 'auto' | 'native' | 'claim';

export interface MongoDocumentStoreOptions extends MongoConnectOptions {
  readonly cas?: CasMode;
  /** A claim older than this whose document has not moved is left over from a crashed writer and is removed. */
  readonly claimStaleMs?: number;
  /**
   * Told of every driver command of the port (not the driver's own handshakes), by collection and command
   * (`insert`, `find`, `findAndModify`, `delete`, `count`; claims as collection `_cas_claims`): the services
   * count them in `a2a_store_operations_total` (issue 23: store operations per send, per collection).
   */
  readonly onOperation?: (collection: string, command: string) => void;
}

/** Stored layout (ADR 0003). `u_*` fields hold unique-index keys; `d` holds the encoded user document. */
interface Row extends Document {
  _id: string;
  v: number;
  d: Record<string, unknown>;
  x?: number;
  /** Incarnation, drawn at insert (claim mode's key); absent on rows written before it. */
  i?: string;
}

interface Claim extends Document {
  _id: string;
  k: string;
  at: number;
}

interface IndexInfo {
  readonly name?: string;
  readonly unique?: boolean;
}

const CLAIMS = '_cas_claims';
const FIELD_SEPARATOR = '%2C'; // never produced by encodeKey (every `%` it emits is followed by 25/2E/24/00)
const PROJECTION = { _id: 1, v: 1, d: 1, x: 1, i: 1 } as const;
/** Incarnations remembered per collection (claim mode): a bounded map, oldest forgotten first. */
const INCARNATIONS_KEPT = 20_000;

function joinFields(fields: readonly string[]): string {
  return fields.map(encodeKey).join(FIELD_SEPARATOR);
}

/** The stored field holding a unique index's key: one string, so a compound unique index is one field. */
function uniqueField(fields: readonly string[]): string {
  return `u_${joinFields(fields)}`;
}

/**
 * The key of a unique index for one document, like the in-memory twin: JSON of the field values with a
 * missing field as null, and a document missing every field exempt (it gets a key of its own, `#<id>`,
 * which no JSON array can equal: this stands in for a sparse index, which FerretDB v1 lacks).
 */
function uniqueValue(fields: readonly string[], id: string, doc: Record<string, unknown>): string {
  const parts = fields.map((f) => doc[f]);
  if (parts.every((p) => p === undefined)) return `#${id}`;
  return JSON.stringify(parts.map((p) => (p === undefined ? null : p)));
}

function toVersioned<T>(row: Row): Versioned<T> {
  const out: { id: string; version: number; doc: T; expiresAt?: number } = {
    id: row._id,
    version: row.v,
    doc: decodeDoc(row.d) as T,
  };
  if (typeof row.x === 'number') out.expiresAt = row.x;
  return out;
}

function toQuery(filter: Filter): Document {
  const query: Document = {};
  for (const [field, value] of Object.entries(filter)) query[`d.${encodeKey(field)}`] = value;
  return query;
}

class MongoCollection<T extends object> implements Collection<T> {
  /** Unique indexes present in the database (from listIndexes), so every handle maintains all of them. */
  uniques: (readonly string[])[] = [];
  /** Claim mode: the incarnation of documents this process read or wrote, so a write need not read first. */
  readonly #incarnations = new Map<string, string>();
  readonly #inserts: InsertBatcher<Row>;

  constructor(
    readonly name: string,
    private readonly coll: DriverCollection<Row>,
    private readonly store: MongoDocumentStore,
  ) {
    this.#inserts = store.insertBatcher(name, coll);
  }

  #uniqueFields(id: string, doc: Record<string, unknown>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const fields of this.uniques) out[uniqueField(fields)] = uniqueValue(fields, id, doc);
    return out;
  }

  #remember(row: Row | null | undefined): void {
    if (!row || !this.store.claims) return;
    const m = this.#incarnations;
    m.delete(row._id);
    m.set(row._id, row.i ?? '');
    if (m.size > INCARNATIONS_KEPT) m.delete(m.keys().next().value!);
  }

  #duplicate(err: unknown, id: string): unknown {
    return isDuplicateKey(err) ? new DuplicateKeyError(this.name, id) : err;
  }

  async insert(id: string, doc: T, options: WriteOptions = {}): Promise<Versioned<T>> {
    const plain = doc as Record<string, unknown>;
    const row: Row = {
      _id: id,
      v: 1,
      d: encodeDoc(plain) as Record<string, unknown>,
      ...this.#uniqueFields(id, plain),
    };
    if (options.expiresAt !== undefined) row.x = options.expiresAt;
    if (this.store.claims) row.i = randomBytes(6).toString('base64url');
    try {
      await this.store.run(this.name, 'insert', () => this.#inserts.insert(row), null);
    } catch (err) {
      throw this.#duplicate(err, id);
    }
    this.#remember(row);
    return toVersioned<T>(row);
  }

  async get(id: string): Promise<Versioned<T> | undefined> {
    const row = await this.store.run(this.name, 'find', () =>
      this.coll.findOne({ _id: id }, { projection: PROJECTION }),
    );
    this.#remember(row);
    return row ? toVersioned<T>(row) : undefined;
  }

  async findOne(filter: Filter): Promise<Versioned<T> | undefined> {
    const [first] = await this.find(filter, { limit: 1 });
    return first;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<Versioned<T>[]> {
    if (options.limit !== undefined && options.limit <= 0) return []; // the driver reads limit 0 as "no limit"
    const sort: Sort = options.sort
      ? { [`d.${encodeKey(options.sort.field)}`]: options.sort.direction, _id: 1 }
      : { _id: 1 };
    const rows = await this.store.run(this.name, 'find', () => {
      let cursor = this.coll.find(toQuery(filter), { projection: PROJECTION }).sort(sort);
      if (options.skip) cursor = cursor.skip(options.skip);
      if (options.limit !== undefined) cursor = cursor.limit(options.limit);
      return cursor.toArray();
    });
    for (const r of rows) this.#remember(r);
    return rows.map((r) => toVersioned<T>(r));
  }

  async count(filter: Filter): Promise<number> {
    return this.store.run(this.name, 'count', () => this.coll.countDocuments(toQuery(filter)));
  }

  async replace(id: string, expectedVersion: number, doc: T, options: WriteOptions = {}): Promise<Versioned<T>> {
    const plain = doc as Record<string, unknown>;
    const set: Document = { d: encodeDoc(plain), ...this.#uniqueFields(id, plain) };
    if (options.expiresAt !== undefined) set.x = options.expiresAt;
    const write = async (filter: Document): Promise<Versioned<T>> => {
      let after: Row | null;
      try {
        after = await this.store.run(this.name, 'findAndModify', () =>
          this.coll.findOneAndUpdate(
            filter,
            { $set: set, $inc: { v: 1 } },
            { returnDocument: 'after' }, // no projection: FerretDB v1 findAndModify lacks `fields`
          ),
        );
      } catch (err) {
        throw this.#duplicate(err, id);
      }
      if (!after) throw await this.#whyNot(id);
      this.#remember(after);
      return toVersioned<T>(after);
    };
    if (!this.store.claims) return write({ _id: id, v: expectedVersion });
    const claim = await this.#claim(id, expectedVersion);
    // Holding the claim for `expectedVersion + 1` of this incarnation, nobody else can move the document off
    // `expectedVersion`: the write filtered on both cannot lose a racing write (FerretDB pushes the top-level
    // equalities down to PostgreSQL; ADR 0026).
    try {
      return await write({ _id: id, v: expectedVersion, i: claim.i === '' ? { $exists: false } : claim.i });
    } catch (err) {
      // Not written (a unique key taken, an outage): the version is still free to claim. A write that did
      // happen before an outage is safe too: the version in the filter refuses a second one.
      if (!(err instanceof VersionConflictError || err instanceof NotFoundError)) await this.#release(claim.id);
      throw err;
    }
  }

  async delete(id: string, expectedVersion?: number): Promise<boolean> {
    this.#incarnations.delete(id);
    if (expectedVersion === undefined) {
      const r = await this.store.run(this.name, 'delete', () => this.coll.deleteOne({ _id: id }));
      return r.deletedCount > 0;
    }
    const remove = async (filter: Document): Promise<boolean> => {
      const r = await this.store.run(this.name, 'delete', () => this.coll.deleteOne(filter));
      return r.deletedCount > 0;
    };
    if (!this.store.claims) return remove({ _id: id, v: expectedVersion });
    let claim: { i: string; id: string };
    try {
      claim = await this.#claim(id, expectedVersion);
    } catch (err) {
      if (err instanceof VersionConflictError || err instanceof NotFoundError) return false;
      throw err;
    }
    this.#incarnations.delete(id);
    return remove({ _id: id, v: expectedVersion, i: claim.i === '' ? { $exists: false } : claim.i });
  }

  async sweepExpired(now: number): Promise<number> {
    const r = await this.store.run(this.name, 'delete', () => this.coll.deleteMany({ x: { $lte: now } }));
    return r.deletedCount;
  }

  /** After a conditional write matched nothing: NOT_FOUND when the document is gone, else VERSION_CONFLICT. */
  async #whyNot(id: string): Promise<AppError> {
    this.#incarnations.delete(id); // perhaps a stale incarnation: read it again next time
    const current = await this.store.run(this.name, 'find', () =>
      this.coll.findOne({ _id: id }, { projection: { _id: 1 } }),
    );
    return current ? new VersionConflictError(this.name, id) : new NotFoundError(`${this.name}/${id}`);
  }

  /** The document's incarnation, read with a check of its version. */
  async #readIncarnation(id: string, version: number): Promise<string> {
    const row = await this.store.run(this.name, 'find', () =>
      this.coll.findOne({ _id: id }, { projection: { v: 1, i: 1 } }),
    );
    if (!row) throw new NotFoundError(`${this.name}/${id}`);
    if (row.v !== version) throw new VersionConflictError(this.name, id);
    this.#remember(row);
    return row.i ?? '';
  }

  /**
   * Takes the right to move `id` (of its incarnation) from `version` to `version + 1`; resolves the
   * incarnation. VERSION_CONFLICT when someone else holds it (or held it: claims are kept), NOT_FOUND when
   * the document is gone.
   */
  async #claim(id: string, version: number): Promise<{ i: string; id: string }> {
    this.store.sweepClaims();
    const claims = this.store.claimsCollection();
    for (let attempt = 0; attempt < 4; attempt++) {
      const known = this.#incarnations.get(id);
      const i = known ?? (await this.#readIncarnation(id, version));
      const k = JSON.stringify([this.name, id, i, version + 1]);
      const claim: Claim = { _id: randomUUID(), k, at: Date.now() };
      try {
        await this.store.run(this.name, 'insert', () => this.store.claimInserts.insert(claim), null);
        return { i, id: claim._id };
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      if (known !== undefined) {
        // Remembered, not read: the incarnation may be an older one. Check with a read (which also tells a
        // plain conflict) before calling it one.
        this.#incarnations.delete(id);
        continue;
      }
      const holder = await this.store.run(this.name, 'find', () => claims.findOne({ k }), CLAIMS);
      if (!holder) continue; // swept meanwhile: try again
      if (Date.now() - holder.at < this.store.claimStaleMs) throw await this.#whyNot(id);
      const row = await this.store.run(this.name, 'find', () =>
        this.coll.findOne({ _id: id }, { projection: { v: 1, i: 1 } }),
      );
      // The document moved on (the claim was a successful writer's), or is another incarnation: a conflict.
      if (!row || row.v !== version || (row.i ?? '') !== i) throw await this.#whyNot(id);
      // Left over by a writer that died between claim and write. Deleting by the claim's own _id can never
      // remove a newer claim for the same k.
      this.store.log.warn(
        { collection: this.name, id, version, claimAgeMs: Date.now() - holder.at },
        'removing a stale CAS claim',
      );
      await this.store.run(this.name, 'delete', () => claims.deleteOne({ _id: holder._id }), CLAIMS);
    }
    throw await this.#whyNot(id);
  }

  async #release(claimId: string): Promise<void> {
    try {
      this.store.counted(CLAIMS, 'delete');
      await this.store.claimsCollection().deleteOne({ _id: claimId });
    } catch (err) {
      // A claim we fail to delete only delays the next writer of this version by claimStaleMs.
      this.store.log.warn({ err, collection: this.name }, 'could not release a CAS claim');
    }
  }
}

/** The index driver calls {@link createIndex} makes (the driver's collection, or a stand-in in tests). */
/**
 * Server codes of an index creation that fails the same way every time: Unauthorized, AuthenticationFailed,
 * CannotCreateIndex, InvalidOptions, IndexOptionsConflict, IndexKeySpecsConflict, InvalidIndexSpecificationOption.
 */
const DEFINITE_INDEX_ERRORS = new Set([13, 18, 67, 72, 85, 86, 197]);

export interface IndexDriver {
  createIndexes(indexes: IndexDescription[]): Promise<unknown>;
  listIndexes(): { toArray(): Promise<Document[]> };
}

/**
 * Creates one index unless it exists, tolerating other processes doing the same at the same moment: a failed
 * create is re-checked (another process made it) and retried a few times (FerretDB refuses concurrent DDL in one
 * new database with a transient conflict, which made a service fail to start beside another, CI 2026-11-28).
 * A refusal that no retry changes (`DEFINITE_INDEX_ERRORS`: an options conflict, no permission) surfaces at once.
 */
export async function createIndex(
  driver: IndexDriver,
  index: IndexDescription,
  log: AdapterLog,
  { attempts = 4, delayMs = 150 }: { attempts?: number; delayMs?: number } = {},
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await driver.createIndexes([index]);
      return;
    } catch (err) {
      const now = (await driver
        .listIndexes()
        .toArray()
        .catch(() => [])) as IndexInfo[];
      if (now.some((i) => i.name === index.name)) return;
      if (attempt >= attempts || (err instanceof MongoServerError && DEFINITE_INDEX_ERRORS.has(Number(err.code))))
        throw err;
      log.warn(
        { index: index.name, attempt, err: err instanceof Error ? err.message : String(err) },
        'index creation failed (another process creating one at the same time?): retrying',
      );
      await new Promise((resolve) => setTimeout(resolve, delayMs * attempt));
    }
  }
}

/**
 * Document store port on MongoDB (and FerretDB v1). Layout and CAS design: docs/adr/0003-mongo-document-layout.md.
 */
export class MongoDocumentStore implements DocumentStore {
  readonly #client: MongoClient;
  readonly #db: Db;
  readonly #collections = new Map<string, Promise<MongoCollection<object>>>();
  readonly log: AdapterLog;
  readonly claims: boolean;
  readonly claimStaleMs: number;
  /** Claims older than this are swept (they only need to outlive a writer's claim-to-write window). */
  readonly claimKeepMs: number;
  #claimsSweptAt = Date.now();
  #closing: Promise<void> | undefined;
  readonly #onOperation: ((collection: string, command: string) => void) | undefined;
  /** @internal The claims of every collection's writes, coalesced while one claim insert is in flight. */
  readonly claimInserts: InsertBatcher<Claim>;
  #watchdog: ClientWatchdog | undefined;

  private constructor(client: MongoClient, options: MongoDocumentStoreOptions, claims: boolean) {
    this.#client = client;
    this.#db = client.db(options.dbName);
    this.log = options.log ?? silentLog;
    this.claims = claims;
    this.claimStaleMs = options.claimStaleMs ?? 10_000;
    this.claimKeepMs = Math.max(60_000, 6 * this.claimStaleMs);
    this.#onOperation = options.onOperation;
    this.claimInserts = this.insertBatcher(CLAIMS, this.claimsCollection());
  }

  static async connect(options: MongoDocumentStoreOptions): Promise<MongoDocumentStore> {
    const { client, ferretdb, watchdog } = await openMongo(options, 'a2a-document-store');
    const mode = options.cas ?? 'auto';
    const store = new MongoDocumentStore(client, options, mode === 'claim' || (mode === 'auto' && ferretdb));
    store.#watchdog = watchdog;
    if (store.claims) {
      try {
        await createIndex(store.claimsCollection(), { key: { k: 1 }, name: 'k_unique', unique: true }, store.log);
      } catch (err) {
        watchdog.stop();
        await client.close();
        throw toAppErrorFromMongo(err, CLAIMS);
      }
    }
    return store;
  }

  /** @internal */
  claimsCollection(): DriverCollection<Claim> {
    return this.#db.collection<Claim>(CLAIMS);
  }

  /** @internal A collection's inserts, coalesced; each driver command counted once. */
  insertBatcher<R extends Document>(name: string, coll: DriverCollection<R>): InsertBatcher<R> {
    return new InsertBatcher<R>(
      (row) => {
        this.counted(name, 'insert');
        return coll.insertOne(row as OptionalUnlessRequiredId<R>);
      },
      (rows) => {
        this.counted(name, 'insert');
        return coll.insertMany(rows as OptionalUnlessRequiredId<R>[], { ordered: false });
      },
    );
  }

  /** @internal Tells `onOperation` of a driver command. */
  counted(collection: string, command: string): void {
    this.#onOperation?.(collection, command);
  }

  /** @internal Deletes the claims past `claimKeepMs`, at most once per half of it, in the background. */
  sweepClaims(): void {
    const now = Date.now();
    if (now - this.#claimsSweptAt < this.claimKeepMs / 2 || this.#closing) return;
    this.#claimsSweptAt = now;
    this.counted(CLAIMS, 'delete');
    this.claimsCollection()
      .deleteMany({ at: { $lt: now - this.claimKeepMs } })
      .catch((err: unknown) => this.log.warn({ err }, 'could not sweep old CAS claims'));
  }

  /**
   * @internal Runs one driver command on `what` (a collection; `counted`: the collection the command goes to
   * when another, e.g. a claim), mapping engine outages to UNAVAILABLE; counted by `onOperation`.
   */
  async run<R>(what: string, command: string, fn: () => Promise<R>, counted: string | null = what): Promise<R> {
    if (counted !== null) this.counted(counted, command); // null: `fn` counts its own commands
    if (this.#closing) throw new AppError('UNAVAILABLE', 'document store is closed');
    try {
      return await fn();
    } catch (err) {
      throw toAppErrorFromMongo(err, what);
    }
  }

  collection<T extends object>(spec: CollectionSpec): Promise<Collection<T>> {
    if (this.#closing) return Promise.reject(new AppError('UNAVAILABLE', 'document store is closed'));
    const previous = this.#collections.get(spec.name);
    // Every open (re)creates the spec's indexes (idempotent) and re-reads the unique ones.
    const opened = (async () => {
      const handle = previous ? await previous.catch(() => undefined) : undefined;
      const coll = handle ?? new MongoCollection<object>(spec.name, this.#db.collection<Row>(spec.name), this);
      await this.#ensureIndexes(coll, spec.indexes ?? []);
      return coll;
    })();
    this.#collections.set(spec.name, opened);
    return opened as unknown as Promise<Collection<T>>;
  }

  async #ensureIndexes(coll: MongoCollection<object>, indexes: readonly IndexSpec[]): Promise<void> {
    const driver = this.#db.collection<Row>(coll.name);
    const wanted: IndexDescription[] = [{ key: { x: 1 }, name: 'x_expiry' }];
    const newUniques: (readonly string[])[] = [];
    for (const index of indexes) {
      if (index.fields.length === 0) continue;
      const key: Record<string, 1> = {};
      for (const f of index.fields) key[`d.${encodeKey(f)}`] = 1;
      wanted.push({ key, name: `q_${joinFields(index.fields)}` });
      if (index.unique) {
        wanted.push({ key: { [uniqueField(index.fields)]: 1 }, name: uniqueField(index.fields), unique: true });
        newUniques.push(index.fields);
      }
    }
    await this.run(coll.name, 'createIndexes', async () => {
      const listIndexes = async (): Promise<IndexInfo[]> => (await driver.listIndexes().toArray()) as IndexInfo[];
      // A collection that does not exist yet has no indexes (FerretDB answers NamespaceNotFound).
      const existing = await listIndexes().catch(() => [] as IndexInfo[]);
      const existingNames = new Set(existing.map((i) => String(i.name)));
      for (const fields of newUniques) {
        if (!existingNames.has(uniqueField(fields))) await this.#backfillUnique(driver, fields);
      }
      // One at a time and only the missing ones: FerretDB v1 drops the connection when a batch
      // re-creates several existing indexes. Another process may race us: re-check on failure.
      for (const index of wanted) {
        if (!existingNames.has(index.name!)) await createIndex(driver, index, this.log);
      }
      coll.uniques = (await listIndexes())
        .filter((i) => i.unique === true && i.name?.startsWith('u_'))
        .map((i) => i.name!.slice(2).split(FIELD_SEPARATOR).map(decodeKey));
    });
  }

  /** A unique index added to a populated collection: give existing documents their key first. */
  async #backfillUnique(driver: DriverCollection<Row>, fields: readonly string[]): Promise<void> {
    const field = uniqueField(fields);
    for await (const row of driver.find({ [field]: { $exists: false } }, { projection: { _id: 1, d: 1 } })) {
      const doc = decodeDoc(row.d) as Record<string, unknown>;
      await driver.updateOne({ _id: row._id }, { $set: { [field]: uniqueValue(fields, row._id, doc) } });
    }
  }

  async ping(): Promise<void> {
    await this.run('ping', 'ping', () => this.#db.command({ ping: 1 }));
  }

  close(): Promise<void> {
    this.#watchdog?.stop();
    this.#closing ??= this.#client.close().catch((err: unknown) => {
      this.log.warn({ err }, 'error while closing the MongoDB client');
    });
    return this.#closing;
  }
}
