export { LmdbDatabase } from './lmdb-database';
export type { LmdbOpenOptions, PendingCommit } from './lmdb-database';
export { LmdbDocumentStore } from './lmdb-document-store';
export { LmdbEventLog } from './lmdb-event-log';
export type { LmdbEventLogOptions } from './lmdb-event-log';
export { LmdbBlobStore } from './lmdb-blob-store';
export { LmdbOutboxBus } from './lmdb-outbox-bus';
export type { LmdbOutboxBusOptions } from './lmdb-outbox-bus';
