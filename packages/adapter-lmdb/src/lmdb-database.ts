import { mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';

type Sub<V> = Database<V, Buffer>;

/** The database file inside its directory (LMDB keeps its reader table beside it, `a2a.mdb-lock`). */
const FILE = 'a2a.mdb';

export interface LmdbOpenOptions {
  /**
   * `interval` (default): each write is a synchronous commit into the file (in the OS page cache when it
   * resolves, so a killed process loses nothing) and the file is synced to disk off the main thread every
   * `syncIntervalMs` while there are writes: a power loss or OS crash may lose that last interval.
   * `commit`: each write resolves after its commit is synced (lmdb-js's batched, overlapping sync): nothing
   * acknowledged is ever lost, at several times the CPU and latency per write (ADR 0029).
   */
  readonly durability?: 'interval' | 'commit';
  readonly syncIntervalMs?: number;
  /**
   * When the open transaction commits (`interval` durability; default: at the check phase that ends the second
   * turn in a row without writes, or once it has been open `maxOpenMs`). Tests delay a commit or make it fail with
   * it; `fail` aborts the transaction (its writes are lost and `committed()` rejects with `error`).
   */
  readonly scheduleCommit?: (txn: PendingCommit) => void;
  /** How long the default schedule keeps a transaction open while writes keep coming (default 10 ms). */
  readonly maxOpenMs?: number;
  /**
   * `interval` durability only (default true there): LMDB's MDB_WRITEMAP, pages written in the shared map
   * (ADR 0077). A write then runs in the turn's transaction itself, not in a child transaction: a write that
   * throws aborts the turn's transaction (every write in it is lost, `committed()` rejects), where a child
   * transaction would have undone that write alone. `false`: LMDB's own page copies and child transactions.
   */
  readonly writemap?: boolean;
}

/** A transaction of `interval` durability, open until one of these is called (once; later calls do nothing). */
export interface PendingCommit {
  commit(): void;
  fail(error: Error): void;
  /** Leaves it to the default schedule (after two turns without writes, or `maxOpenMs`). */
  whenQuiet(): void;
}

interface OpenTxn {
  /** Writes made in it (counted when it ends). */
  writes: number;
  /** Why it was aborted (a writemap write threw, or `fail`): its writes not yet settled reject with it. */
  failure?: Error;
  /** A write was made since the last check phase. */
  recent: boolean;
  /** Check phases in a row with no write before them (the default schedule commits after two). */
  quiet: number;
  /** When it was opened (`performance.now()`). */
  readonly opened: number;
  /** lmdb-js's continuation of the open transaction: commits it, or (`fail`) aborts it. */
  end: ((value: undefined) => unknown) | undefined;
  fail: ((error: unknown) => unknown) | undefined;
  /** `committed()`'s promise, made on the first ask. */
  done?: Promise<void>;
  resolve?: () => void;
  reject?: (error: unknown) => void;
}

/**
 * One LMDB environment (one file in a data directory) shared by the adapters of one process: documents,
 * indexes, events and blobs, each a named database inside it, so one transaction can span them. Commits are
 * atomic (copy-on-write pages and two meta pages: a killed process never leaves a torn write). Each adapter
 * holds a reference; the environment closes with the last one.
 */
export class LmdbDatabase {
  readonly root: RootDatabase;
  /** collection + id → JSON `{v, e?, d}`. */
  readonly docs: Sub<string>;
  /** collection + index + values + id → '' (equality indexes). */
  readonly index: Sub<string>;
  /** collection + expiresAt + id → '' (the retention sweep reads only what expired). */
  readonly expiry: Sub<string>;
  /** stream + seq → event bytes. */
  readonly events: Sub<Buffer>;
  /** stream → JSON `{last, exp?}`. */
  readonly streams: Sub<string>;
  /** id → file bytes. */
  readonly blobs: Sub<Buffer>;
  /** id → JSON BlobRef; also other small records (built indexes). */
  readonly meta: Sub<string>;
  /** 8-byte sequence → a bus message not yet handled (`LmdbOutboxBus`). */
  readonly outbox: Sub<Buffer>;
  readonly durability: 'interval' | 'commit';
  /** Writes go straight into the shared map, in the turn's transaction (no child transactions): ADR 0077. */
  readonly writemap: boolean;
  #refs = 0;
  #closing: Promise<void> | undefined;
  #dirty = false;
  /** The transaction of this turn, open until its commit (`#end`), when writes were made in it. */
  #txn: OpenTxn | undefined;
  /** `writeSoon` writes waiting for the next transaction. */
  readonly #soon: (() => void)[] = [];
  #commits = 0;
  #writes = 0;
  readonly #schedule: ((txn: PendingCommit) => void) | undefined;
  readonly #maxOpenMs: number;
  /** Settlements of the writes run since the last check phase: they settle together there (`#settle`). */
  #unsettled: (() => void)[] = [];
  #syncing: Promise<void> | undefined;
  readonly #syncTimer: NodeJS.Timeout | undefined;

  private constructor(
    readonly path: string,
    options: LmdbOpenOptions,
  ) {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    this.durability = options.durability ?? 'interval';
    this.#schedule = options.scheduleCommit;
    this.#maxOpenMs = options.maxOpenMs ?? 10;
    this.writemap = this.durability === 'interval' && options.writemap !== false;
    this.root = open({
      path: join(path, FILE),
      maxDbs: 16,
      keyEncoding: 'binary',
      encoding: 'string',
      ...(this.writemap ? { useWritemap: true } : {}),
      // Interval durability syncs the file itself (below); commit durability leaves it to lmdb-js.
      ...(this.durability === 'interval' ? { noSync: true } : {}),
    });
    if (this.durability === 'interval') {
      this.#syncTimer = setInterval(() => {
        // Writes queued by `writeSoon` with no awaited write after them are committed here at the latest.
        if (this.#soon.length > 0 && !this.#txn) this.#begin();
        void this.sync();
      }, options.syncIntervalMs ?? 100);
      this.#syncTimer.unref();
    }
    const sub = <V>(name: string, encoding: 'string' | 'binary'): Sub<V> =>
      this.root.openDB({ name, keyEncoding: 'binary', encoding }) as unknown as Sub<V>;
    this.docs = sub('docs', 'string');
    this.index = sub('index', 'string');
    this.expiry = sub('expiry', 'string');
    this.events = sub('events', 'binary');
    this.streams = sub('streams', 'string');
    this.blobs = sub('blobs', 'binary');
    this.meta = sub('meta', 'string');
    this.outbox = sub('outbox', 'binary');
  }

  /** Opens (creating the folder and the file on first use) the database in `dir`. */
  static open(dir: string, options: LmdbOpenOptions = {}): LmdbDatabase {
    return new LmdbDatabase(dir, options);
  }

  /**
   * Gives the free pages back to the file system. LMDB reuses the pages that deletes free (retention sweeps)
   * but never shrinks its file below its high-water mark; a compacting copy (`mdb_env_copy2` with
   * `MDB_CP_COMPACT`: only the pages in use, renumbered) is written beside the file and renamed over it (one
   * atomic step: a crash before it leaves the old file whole and a stray copy the next run replaces). The
   * caller guarantees that no other process has the database open (the embedded mode's lock). Resolves the
   * file's size before and after, in bytes.
   */
  static async compact(dir: string): Promise<{ before: number; after: number }> {
    const file = join(dir, FILE);
    const copy = `${file}.compact`;
    const before = statSync(file).size;
    rmSync(copy, { force: true });
    const db = new LmdbDatabase(dir, { durability: 'commit' });
    try {
      await db.root.backup(copy, true);
    } finally {
      await db.close();
    }
    renameSync(copy, file);
    return { before, after: statSync(file).size };
  }

  /**
   * Runs `fn` in a write transaction and resolves its result. `fn` runs synchronously and must report what
   * went wrong by its result rather than throw: a throw rejects the write, and with the writemap (the default of
   * `interval` durability, ADR 0077) aborts the turn's transaction with it (every write in it rejects or, when
   * already resolved, sees `committed()` reject); without it only what `fn` wrote is undone (a child transaction).
   * Check first, write last: every store of this package does its checks (versions, unique keys, key sizes)
   * before its first put.
   *
   * With `interval` durability the write runs at once in the open transaction (a child transaction of it;
   * every read of this process sees it at once) and resolves at the next check phase, with the other writes of
   * its turn, before that transaction commits: the transaction stays open while the writers keep writing,
   * and commits after two turns without writes (or `maxOpenMs`), so a lone send's writes are one commit and
   * concurrent sends share one (group commit). A resolved write is not yet durable: whatever leaves the
   * process because of it waits for `committed()` first (ADR 0069). Resolving at the check phase rather than
   * at once keeps concurrent sends in step, as when each write waited for its commit: resolved at once, a
   * send ran through to its answer within one callback, and CPU per send at c = 16 rose by a third
   * (docs/performance.md). With `commit` durability it resolves once committed and synced.
   */
  write<T>(fn: () => T): Promise<T> {
    if (this.durability === 'commit') return this.root.transaction(fn);
    const txn = this.#txn ?? this.#begin();
    txn.writes += 1;
    txn.recent = true;
    let settle: (resolve: (value: T) => void, reject: (error: Error) => void) => void;
    try {
      // Writemap: in the turn's transaction itself. Else a child transaction: a throw undoes this write alone.
      const result = this.writemap ? fn() : this.root.transactionSync(fn);
      settle = (resolve, reject) => (txn.failure ? reject(txn.failure) : resolve(result));
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      settle = (_, reject) => reject(error);
      // What it wrote before it threw cannot be undone alone: the turn's transaction goes with it.
      if (this.writemap) this.#end(txn, error);
    }
    return new Promise<T>((resolve, reject) => {
      if (this.#unsettled.push(() => settle(resolve, reject)) === 1) setImmediate(this.#settle);
    });
  }

  /** Settles the writes of the last turn, in their order. */
  readonly #settle = (): void => {
    const writes = this.#unsettled;
    this.#unsettled = [];
    for (const settle of writes) settle();
  };

  /**
   * Runs `fn` in the next commit without asking for one: the turn's transaction when one is open, else the
   * next one (an awaited write's or the sync timer's, within `syncIntervalMs`), in order with the other writes.
   * It never makes a commit of its own nor holds anything back; a killed process loses it when no commit
   * followed. Only for a write whose loss is harmless: one that a restart redoes (an outbox message settled:
   * it is published again, and its consumer is idempotent). `fn` must not throw.
   */
  writeSoon(fn: () => void): void {
    if (this.durability === 'commit') {
      this.root.transaction(fn).catch(() => undefined);
      return;
    }
    if (this.#txn) this.#runSoon(fn);
    else this.#soon.push(fn);
  }

  /**
   * Undefined when every write resolved so far is committed; else the commit of the open transaction, which
   * rejects when it failed. The commit barrier of ADR 0069 (`CommitBarrier`).
   */
  committed(): Promise<void> | undefined {
    const txn = this.#txn;
    if (!txn) return undefined;
    return (txn.done ??= new Promise<void>((resolve, reject) => {
      txn.resolve = resolve;
      txn.reject = reject;
    }));
  }

  /** Transactions committed (the writes of a turn each), since the database was opened. */
  get commits(): number {
    return this.#commits;
  }

  /** Writes run (each `write`), since the database was opened. */
  get writes(): number {
    return this.#writes;
  }

  /** Opens the turn's write transaction (held open by a thenable until `#end`) and schedules its commit. */
  #begin(): OpenTxn {
    const txn: OpenTxn = {
      writes: 0,
      recent: false,
      quiet: 0,
      opened: performance.now(),
      end: undefined,
      fail: undefined,
    };
    this.root.transactionSync(
      () =>
        // lmdb-js keeps a transaction whose callback returns a thenable open until it settles; settled by hand,
        // synchronously, so that the commit happens where `#end` is called, not in a later microtask.
        ({
          then: (commit: () => unknown, abort: (error: unknown) => unknown) => {
            txn.end = commit;
            txn.fail = abort;
          },
        }) as unknown as PromiseLike<void>,
    );
    this.#txn = txn;
    const soon = this.#soon.splice(0);
    for (const fn of soon) this.#runSoon(fn);
    const whenQuiet = (): void => void setImmediate(() => this.#commitWhenQuiet(txn));
    if (this.#schedule)
      this.#schedule({ commit: () => this.#end(txn), fail: (error) => this.#end(txn, error), whenQuiet });
    else whenQuiet();
    return txn;
  }

  /**
   * At each check phase: commits `txn` after two turns in a row without a write in it (its writers are done,
   * or wait on something else: a lone send has a turn without writes of its own, and after one such turn it
   * made 1.6 commits instead of one) or once it has
   * been open `maxOpenMs` (writers that never pause); else looks again at the next.
   */
  #commitWhenQuiet(txn: OpenTxn): void {
    if (this.#txn !== txn) return;
    txn.quiet = txn.recent ? 0 : txn.quiet + 1;
    txn.recent = false;
    if (txn.quiet < 2 && performance.now() - txn.opened < this.#maxOpenMs) {
      setImmediate(() => this.#commitWhenQuiet(txn));
      return;
    }
    this.#end(txn);
  }

  #runSoon(fn: () => void): void {
    try {
      if (this.writemap) fn();
      else this.root.transactionSync(fn);
    } catch (err) {
      // A `writeSoon` write must not throw; one that did is dropped (its loss is harmless by contract), and with
      // a writemap the turn's transaction with it (what it wrote before the throw cannot be undone alone).
      if (this.writemap && this.#txn) this.#end(this.#txn, err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Commits `txn` (or, given an error, aborts it): its writes are durable in the file, or lost. */
  #end(txn: OpenTxn, error?: unknown): void {
    if (this.#txn !== txn) return;
    this.#txn = undefined;
    if (error !== undefined) txn.failure = error instanceof Error ? error : new Error('the transaction was aborted');
    this.#writes += txn.writes;
    let failure = error;
    if (failure === undefined) {
      try {
        txn.end?.(undefined);
        this.#commits += 1;
        this.#dirty = true;
      } catch (err) {
        failure = err;
        txn.failure = err instanceof Error ? err : new Error(String(err));
      }
    } else {
      try {
        txn.fail?.(failure);
      } catch {
        // The abort rethrows the reason: it was given, not raised.
      }
    }
    if (failure === undefined) txn.resolve?.();
    else if (txn.reject) txn.reject(failure);
    else if (txn.done) void txn.done.catch(() => undefined);
  }

  /** Syncs the file to disk (off the main thread) when something was written since the last sync. */
  sync(): Promise<void> {
    if (!this.#dirty || this.#syncing) return this.#syncing ?? Promise.resolve();
    this.#dirty = false;
    // A failed sync is retried with the next write's.
    const syncing = this.#envSync().finally(() => {
      this.#syncing = undefined;
    });
    this.#syncing = syncing;
    return syncing;
  }

  /** A reference for one adapter; the returned function releases it (the last release closes). */
  acquire(): () => Promise<void> {
    if (this.#closing) throw new Error('the LMDB environment is closed');
    this.#refs += 1;
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      this.#refs -= 1;
      if (this.#refs === 0) await this.close();
    };
  }

  /** mdb_env_sync on lmdb-js's thread pool (not in its type declarations). */
  #envSync(): Promise<void> {
    const env = this.root as unknown as { sync(callback: (error?: Error) => void): void };
    return new Promise<void>((resolve) => env.sync(() => resolve()));
  }

  close(): Promise<void> {
    return (this.#closing ??= (async () => {
      clearInterval(this.#syncTimer);
      if (this.#soon.length > 0 && !this.#txn) this.#begin();
      if (this.#txn) this.#end(this.#txn);
      await this.#syncing;
      await this.root.flushed;
      await this.#envSync();
      await this.root.close();
    })());
  }
}
