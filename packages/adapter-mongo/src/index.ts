export { MongoDocumentStore } from './mongo-document-store';
export type { CasMode, MongoDocumentStoreOptions } from './mongo-document-store';
export { MongoBlobStore } from './mongo-blob-store';
export type { MongoBlobStoreOptions } from './mongo-blob-store';
export type { AdapterLog, MongoConnectOptions } from './mongo-common';
export { decodeDoc, decodeKey, encodeDoc, encodeKey } from './key-codec';
