import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';

type Sub<V> = Database<V, Buffer>;

/**
 * One LMDB environment (one file in a data directory) shared by the adapters of one process: documents,
 * indexes, events and blobs, each a named database inside it, so one transaction can span them. Commits are
 * atomic and crash-safe (copy-on-write pages and two meta pages: a killed process never leaves a torn
 * write); with lmdb-js's default overlapping sync a commit is visible when the write resolves and flushed to
 * disk right after (ADR 0027). Each adapter holds a reference; the environment closes with the last one.
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
  #refs = 0;
  #closing: Promise<void> | undefined;

  private constructor(readonly path: string) {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    this.root = open({ path: join(path, 'a2a.mdb'), maxDbs: 16, keyEncoding: 'binary', encoding: 'string' });
    const sub = <V>(name: string, encoding: 'string' | 'binary'): Sub<V> =>
      this.root.openDB({ name, keyEncoding: 'binary', encoding }) as unknown as Sub<V>;
    this.docs = sub('docs', 'string');
    this.index = sub('index', 'string');
    this.expiry = sub('expiry', 'string');
    this.events = sub('events', 'binary');
    this.streams = sub('streams', 'string');
    this.blobs = sub('blobs', 'binary');
    this.meta = sub('meta', 'string');
  }

  /** Opens (creating the folder and the file on first use) the database in `dir`. */
  static open(dir: string): LmdbDatabase {
    return new LmdbDatabase(dir);
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

  /** Resolves once every commit so far is on disk (not only visible). */
  async flushed(): Promise<void> {
    await this.root.flushed;
  }

  close(): Promise<void> {
    return (this.#closing ??= (async () => {
      await this.root.flushed;
      await this.root.close();
    })());
  }
}
