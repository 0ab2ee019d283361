import type { Document, WriteError } from 'mongodb';
import { MongoBulkWriteError, MongoServerError } from 'mongodb';

/** Documents per coalesced insert command at most (the driver splits larger messages itself). */
const MAX_BATCH = 100;

interface Pending<R> {
  row: R;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Inserts into one collection, coalesced (issue 23: store commands per send): an insert made while no insert
 * of the collection is in flight goes at once in its own command, so a lone request waits for nothing; those
 * made meanwhile go together in the next command, unordered, so one document's failure (a duplicate key)
 * fails that insert alone. On FerretDB every command is a round trip and a translation of its own, and under
 * load the concurrent sends' idempotency records, run markers, tasks and compare-and-set claims arrive
 * together. Each insert resolves or rejects as a lone `insertOne` would have.
 */
export class InsertBatcher<R extends Document> {
  readonly #queue: Pending<R>[] = [];
  #flushing = false;

  constructor(
    private readonly one: (row: R) => Promise<unknown>,
    private readonly many: (rows: R[]) => Promise<unknown>,
  ) {}

  insert(row: R): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ row, resolve, reject });
      if (!this.#flushing) void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    this.#flushing = true;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, MAX_BATCH);
        if (batch.length === 1) {
          const [p] = batch as [Pending<R>];
          await this.one(p.row).then(p.resolve, p.reject);
          continue;
        }
        try {
          await this.many(batch.map((p) => p.row));
          for (const p of batch) p.resolve();
        } catch (err) {
          settleBulk(batch, err);
        }
      }
    } finally {
      this.#flushing = false;
    }
  }
}

/**
 * An unordered insert that failed: with per-document write errors, the other documents were inserted, and
 * each failed one gets its own error (a duplicate key stays code 11000); anything else (the engine
 * unreachable, a write concern error) fails every insert of the command.
 */
function settleBulk<R>(batch: readonly Pending<R>[], err: unknown): void {
  const writeErrors: WriteError[] =
    err instanceof MongoBulkWriteError && !err.result.getWriteConcernError() ? [err.writeErrors].flat() : [];
  if (writeErrors.length === 0) {
    for (const p of batch) p.reject(err);
    return;
  }
  const failed = new Map(writeErrors.map((w) => [w.index, w]));
  batch.forEach((p, index) => {
    const w = failed.get(index);
    if (!w) p.resolve();
    // The shape a lone insertOne fails with, so the callers' duplicate-key and outage checks hold.
    else p.reject(new MongoServerError({ message: w.errmsg ?? 'insert failed', code: w.code }));
  });
}
