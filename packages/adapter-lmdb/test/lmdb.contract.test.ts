import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import {
  describeBlobStoreContract,
  describeDocumentStoreContract,
  describeEventLogContract,
} from '@a2a-inbound/ports/testing';
import { LmdbBlobStore, LmdbDatabase, LmdbDocumentStore, LmdbEventLog } from '../src/index';

// No engine to reach: the embedded database runs in this process, always.
const dir = mkdtempSync(join(tmpdir(), 'lmdb-contract-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeDocumentStoreContract('lmdb', async () => LmdbDocumentStore.open(join(dir, 'docs')));
// DATA_SYNC=commit: every write through lmdb-js's asynchronous, batched transactions.
describeDocumentStoreContract(
  'lmdb (durability: commit)',
  async () => new LmdbDocumentStore(LmdbDatabase.open(join(dir, 'docs-commit'), { durability: 'commit' })),
);
describeBlobStoreContract('lmdb', async () => new LmdbBlobStore(LmdbDatabase.open(join(dir, 'blobs'))));
{
  // Both "clients" are the one log of the process (the embedded mode has one process per data directory).
  let log: LmdbEventLog | undefined;
  describeEventLogContract('lmdb', async () => (log ??= new LmdbEventLog(LmdbDatabase.open(join(dir, 'events')))));
}
