export { describeDocumentStoreContract } from './document-store.contract';
export { describeBlobStoreContract } from './blob-store.contract';
export { describeBusContract } from './bus.contract';
export { describeEventLogContract, type EventLogContractOptions } from './event-log.contract';
export { describeRateLimiterContract } from './rate-limiter.contract';
export { describeCacheContract } from './cache.contract';
