import { describe, expect, it } from 'vitest';
import { MongoServerError, type IndexDescription } from 'mongodb';
import { createIndex, type IndexDriver } from '../src/mongo-document-store';

/** A stand-in driver collection: `createIndexes` fails while `failures` lasts, then creates the index. */
function driver(failures: number, madeByOther = false): IndexDriver & { calls: number; names: string[] } {
  const d = {
    calls: 0,
    names: [] as string[],
    async createIndexes(indexes: IndexDescription[]) {
      d.calls++;
      if (madeByOther) d.names.push(indexes[0]!.name!);
      if (d.calls <= failures) throw new Error('conflict: concurrent DDL');
      d.names.push(indexes[0]!.name!);
    },
    listIndexes: () => ({ toArray: async () => d.names.map((name) => ({ name })) }),
  };
  return d;
}

const index: IndexDescription = { key: { k: 1 }, name: 'k_unique', unique: true };

describe('createIndex (start-up DDL beside other processes)', () => {
  it('retries a create that failed transiently and logs the retry', async () => {
    const warnings: unknown[] = [];
    const d = driver(2);
    await createIndex(d, index, { warn: (o) => warnings.push(o), error: () => undefined }, { delayMs: 1 });
    expect(d.calls).toBe(3);
    expect(d.names).toEqual(['k_unique']);
    expect(warnings).toHaveLength(2);
  });

  it('accepts a failed create when another process made the index meanwhile', async () => {
    const d = driver(1, true);
    await createIndex(d, index, { warn: () => undefined, error: () => undefined }, { delayMs: 1 });
    expect(d.calls).toBe(1);
  });

  it('gives up after its attempts with the driver error', async () => {
    const d = driver(10);
    await expect(
      createIndex(d, index, { warn: () => undefined, error: () => undefined }, { attempts: 3, delayMs: 1 }),
    ).rejects.toThrow('conflict: concurrent DDL');
    expect(d.calls).toBe(3);
  });
});

describe('createIndex: a definite refusal (review 22 #10)', () => {
  it('an options conflict is thrown at once, not retried', async () => {
    let calls = 0;
    const conflict = new MongoServerError({ message: 'Index with name: k_unique already exists', code: 85 });
    const d: IndexDriver = {
      createIndexes: () => {
        calls++;
        return Promise.reject(conflict);
      },
      listIndexes: () => ({ toArray: () => Promise.resolve([]) }),
    };
    const warnings: unknown[] = [];
    await expect(
      createIndex(d, index, { warn: (o) => warnings.push(o), error: () => undefined }, { delayMs: 1 }),
    ).rejects.toBe(conflict);
    expect(calls).toBe(1);
    expect(warnings).toEqual([]);
  });
});
