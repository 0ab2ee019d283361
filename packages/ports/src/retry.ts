import { AppError, DuplicateKeyError } from '@a2a-inbound/errors';
import type { Collection, Versioned, WriteOptions } from './document-store';

/** True for a compare-and-set write that lost to a concurrent writer. */
export function isVersionConflict(err: unknown): boolean {
  return err instanceof AppError && err.code === 'VERSION_CONFLICT';
}

function isNotFound(err: unknown): boolean {
  return err instanceof AppError && err.code === 'NOT_FOUND';
}

/** How `updateWithRetry` and `upsertWithRetry` write. */
export interface RetryOptions<T> {
  /** Rounds of read, mutate and write before giving up (default 20). */
  readonly attempts?: number;
  /** Used instead of reading on the first round (the caller has just read it). */
  readonly current?: Versioned<T>;
  /** Write options of the new document, e.g. its retention. */
  readonly writeOptions?: (next: T, current: Versioned<T> | undefined) => WriteOptions | undefined;
  /**
   * Runs once, after the write that succeeded (never for a round that lost): side effects that must follow
   * the stored change, such as logging its event. Its errors propagate; the write is not undone.
   */
  readonly afterWrite?: (saved: Versioned<T>) => Promise<void> | void;
  /** The error thrown when every round met a concurrent writer (default: VERSION_CONFLICT). */
  readonly exhausted?: () => Error;
}

/**
 * Compare-and-set loop: reads the document, applies `mutate`, writes at the read version and retries on a
 * version conflict. `mutate` returns the new document, or undefined to leave it unchanged (then the current
 * document is resolved and `afterWrite` does not run); it may throw to refuse. A missing document resolves
 * undefined. `options` may be a number of attempts (the original signature).
 */
export async function updateWithRetry<T extends object>(
  collection: Collection<T>,
  id: string,
  mutate: (current: Versioned<T>) => T | undefined | Promise<T | undefined>,
  options: RetryOptions<T> | number = {},
): Promise<Versioned<T> | undefined> {
  const o: RetryOptions<T> = typeof options === 'number' ? { attempts: options } : options;
  let first = o.current;
  for (let i = 0; i < (o.attempts ?? 20); i++) {
    const current = first ?? (await collection.get(id));
    first = undefined;
    if (!current) return undefined;
    const next = await mutate(current);
    if (next === undefined) return current;
    let saved: Versioned<T>;
    try {
      saved = await collection.replace(id, current.version, next, o.writeOptions?.(next, current));
    } catch (err) {
      // Changed, or deleted, since it was read: read it again.
      if (isVersionConflict(err) || isNotFound(err)) continue;
      throw err;
    }
    await o.afterWrite?.(saved);
    return saved;
  }
  throw exhaustedError(o, collection.name, id);
}

/**
 * `updateWithRetry` that creates the document when it is missing: `mutate` gets undefined then, and a racing
 * insert (a duplicate key) is retried like a conflict. `insertFirst` tries an insert of that document before
 * any read: cheaper when the document is usually new.
 */
export async function upsertWithRetry<T extends object>(
  collection: Collection<T>,
  id: string,
  mutate: (current: Versioned<T> | undefined) => T | undefined | Promise<T | undefined>,
  options: RetryOptions<T> & { readonly insertFirst?: () => T } = {},
): Promise<Versioned<T> | undefined> {
  if (options.insertFirst) {
    const doc = options.insertFirst();
    try {
      const saved = await collection.insert(id, doc, options.writeOptions?.(doc, undefined));
      await options.afterWrite?.(saved);
      return saved;
    } catch (err) {
      if (!(err instanceof DuplicateKeyError)) throw err;
    }
  }
  let first = options.current;
  for (let i = 0; i < (options.attempts ?? 20); i++) {
    const current = first ?? (await collection.get(id));
    first = undefined;
    const next = await mutate(current);
    if (next === undefined) return current;
    let saved: Versioned<T>;
    try {
      const write = options.writeOptions?.(next, current);
      saved = current
        ? await collection.replace(id, current.version, next, write)
        : await collection.insert(id, next, write);
    } catch (err) {
      if (isVersionConflict(err) || isNotFound(err) || err instanceof DuplicateKeyError) continue;
      throw err;
    }
    await options.afterWrite?.(saved);
    return saved;
  }
  throw exhaustedError(options, collection.name, id);
}

function exhaustedError<T>(o: RetryOptions<T>, collection: string, id: string): Error {
  return o.exhausted?.() ?? new AppError('VERSION_CONFLICT', `${collection}/${id}: too many concurrent writers`);
}
