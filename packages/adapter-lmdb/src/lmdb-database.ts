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
  #refs = 0;
  #closing: Promise<void> | undefined;
  #dirty = false;
  /** Writes waiting for the next commit; those without `resolve` were queued by `writeSoon`. */
  readonly #queue: { fn: () => unknown; resolve?: (value: unknown) => void; reject?: (error: unknown) => void }[] = [];
  /** A group commit is scheduled (an awaited write is queued). */
  #scheduled = false;
  #syncing: Promise<void> | undefined;
  readonly #syncTimer: NodeJS.Timeout | undefined;

  private constructor(
    readonly path: string,
    options: LmdbOpenOptions,
  ) {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    this.durability = options.durability ?? 'interval';
    this.root = open({
      path: join(path, FILE),
      maxDbs: 16,
      keyEncoding: 'binary',
      encoding: 'string',
      // Interval durability syncs the file itself (below); commit durability leaves it to lmdb-js.
      ...(this.durability === 'interval' ? { noSync: true } : {}),
    });
    if (this.durability === 'interval') {
      this.#syncTimer = setInterval(() => {
        // Writes queued by `writeSoon` with no awaited write after them are committed here at the latest.
        if (this.#queue.length > 0 && !this.#scheduled) this.#commit();
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
   * Runs `fn` in a write transaction and resolves its result once committed. `fn` runs synchronously inside
   * the transaction, may run twice (when another write of its batch threw) and should report what went wrong
   * by its result rather than throw.
   */
  async write<T>(fn: () => T): Promise<T> {
    if (this.durability === 'commit') return this.root.transaction(fn);
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      // Group commit: the writes of one event-loop turn share one transaction (never inside the caller's stack).
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#commit());
      }
    });
  }

  /**
   * Runs `fn` in the next commit without asking for one: the next awaited write's group commit, or the sync
   * timer's (within `syncIntervalMs`), in queue order with the other writes. Nothing waits for it, so it costs
   * no commit of its own; a killed process loses it when no commit followed. Only for a write whose loss is
   * harmless: one that a restart redoes (an outbox message settled: it is published again, and its consumer
   * is idempotent). `fn` must not throw.
   */
  writeSoon(fn: () => void): void {
    if (this.durability === 'commit') {
      this.root.transaction(fn).catch(() => undefined);
      return;
    }
    this.#queue.push({ fn });
  }

  #commit(): void {
    this.#scheduled = false;
    const batch = this.#queue.splice(0);
    if (batch.length === 0) return;
    const results: unknown[] = [];
    try {
      this.root.transactionSync(() => {
        for (const w of batch) results.push(w.fn());
      });
    } catch {
      // One of them threw, and the whole batch was rolled back: each alone, so only the faulty one fails.
      for (const w of batch) {
        try {
          const result = this.root.transactionSync(w.fn);
          w.resolve?.(result);
        } catch (err) {
          w.reject?.(err);
        }
      }
      this.#dirty = true;
      return;
    }
    this.#dirty = true;
    batch.forEach((w, i) => w.resolve?.(results[i]));
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
      if (this.#queue.length > 0) this.#commit();
      await this.#syncing;
      await this.root.flushed;
      await this.#envSync();
      await this.root.close();
    })());
  }
}
