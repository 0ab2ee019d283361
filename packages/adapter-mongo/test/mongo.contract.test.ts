import { afterAll, describe } from 'vitest';
import { MongoClient } from 'mongodb';
import { describeBlobStoreContract, describeDocumentStoreContract } from '@a2a-inbound/ports/testing';
import { MongoBlobStore, MongoDocumentStore } from '../src/index';

// Real-engine run: CI sets MONGO_URL (FerretDB v1 there, MongoDB in production). One database per run.
const url = process.env.MONGO_URL ?? '';
const dbName = `contract_${Date.now().toString(36)}`;

describe.runIf(Boolean(url))('mongo adapters (MONGO_URL)', () => {
  describeDocumentStoreContract('mongo', () => MongoDocumentStore.connect({ url, dbName }));
  // `auto` picks claim-based CAS on FerretDB and native findOneAndUpdate CAS on MongoDB; the explicit
  // claim run keeps the claim path covered when MONGO_URL points at a real MongoDB.
  describeDocumentStoreContract('mongo (cas: claim)', () =>
    MongoDocumentStore.connect({ url, dbName: `${dbName}_claim`, cas: 'claim' }),
  );
  describeBlobStoreContract('mongo gridfs', () => MongoBlobStore.connect({ url, dbName }));
  afterAll(async () => {
    // Real engines keep data: drop this run's databases (20 MB of GridFS chunks among them).
    const client = new MongoClient(url);
    try {
      await client.connect();
      for (const name of [dbName, `${dbName}_claim`]) await client.db(name).dropDatabase();
    } finally {
      await client.close();
    }
  });
});
